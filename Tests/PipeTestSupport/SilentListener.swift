import Foundation

/// A loopback TCP listener that never accepts: connections the kernel completes wait in its queue unread, and once
/// the queue (`backlog`) is full further attempts go unanswered. For testing that a client gives up in time.
public final class SilentListener {
    public let descriptor: Int32
    /// The bound address, for connecting to it.
    public private(set) var address = sockaddr_in()
    public var port: UInt16 { UInt16(bigEndian: address.sin_port) }

    public init(backlog: Int32 = 4) throws {
        descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard descriptor >= 0 else { throw SilentListenerError("socket() failed: errno \(errno)") }
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { pointer in
                bind(descriptor, pointer, length) == 0 && listen(descriptor, backlog) == 0
                    && getsockname(descriptor, pointer, &length) == 0
            }
        }
        guard bound else {
            close(descriptor)
            throw SilentListenerError("could not listen on loopback: errno \(errno)")
        }
    }

    deinit { close(descriptor) }
}

public struct SilentListenerError: Error, CustomStringConvertible {
    public let description: String
    init(_ description: String) { self.description = description }
}
