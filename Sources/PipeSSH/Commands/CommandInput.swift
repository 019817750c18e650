import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Where a remote command's standard input comes from.
protocol CommandInput: AnyObject {
    /// Moves what is ready towards `channel`; returns how many bytes moved (0 when nothing was ready or the channel
    /// window is full), or `nil` once the input has ended and everything was sent.
    func send(through channel: SSHChannel) throws -> Int?
    /// What to wait on while nothing is ready (a local process's output), if anything.
    var waitDescriptor: pollfd? { get }
}

/// Standard input from bytes in memory (or none).
final class DataInput: CommandInput {
    private let data: Data
    private var offset = 0

    init(_ data: Data?) {
        self.data = data ?? Data()
    }

    func send(through channel: SSHChannel) throws -> Int? {
        guard offset < data.count else { return nil }
        let sent = try data.withUnsafeBytes { bytes in
            try channel.write(UnsafeRawBufferPointer(rebasing: bytes[offset...]))
        }
        offset += sent
        return sent
    }

    var waitDescriptor: pollfd? { nil }
}
