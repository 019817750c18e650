import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// A raw client for tests that need to control timing byte by byte (a slow client, a body in pieces), the address
/// it comes from (any of 127.0.0.0/8 is this machine), or a Unix socket.
public final class SocketClient {
    public let descriptor: Int32

    /// Connects to 127.0.0.1 `port` from `source` (another loopback address plays another peer).
    public init(port: UInt16, from source: String? = nil) throws {
        descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        if let source {
            var local = sockaddr_in()
            local.sin_family = sa_family_t(AF_INET)
            local.sin_addr.s_addr = inet_addr(source)
            let bound = Self.call(bind, descriptor, &local)
            guard bound == 0 else {
                close(descriptor)
                throw NSError(domain: "SocketClient.bind", code: Int(errno))
            }
        }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = port.bigEndian
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let result = Self.call(connect, descriptor, &address)
        guard result == 0 else {
            close(descriptor)
            throw NSError(domain: "SocketClient", code: Int(errno))
        }
    }

    /// Connects to the Unix socket at `path`.
    public init(unixSocket path: String) throws {
        descriptor = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        withUnsafeMutableBytes(of: &address.sun_path) { buffer in
            let bytes = Array(path.utf8)
            buffer.copyBytes(from: bytes)
            buffer[bytes.count] = 0
        }
        let result = Self.call(connect, descriptor, &address)
        guard result == 0 else {
            close(descriptor)
            throw NSError(domain: "SocketClient.unix", code: Int(errno))
        }
    }

    deinit { close(descriptor) }

    /// `bind` or `connect` with a socket address of any family.
    private static func call<Address>(
        _ function: (Int32, UnsafePointer<sockaddr>, socklen_t) -> Int32, _ descriptor: Int32,
        _ address: inout Address
    ) -> Int32 {
        withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                function(descriptor, $0, socklen_t(MemoryLayout<Address>.size))
            }
        }
    }

    /// Sends `text`; `false` when the server has closed the connection.
    @discardableResult
    public func send(_ text: String) -> Bool { send(bytes: Array(text.utf8)) }

    /// Sends `bytes`; `false` when the server has closed the connection.
    @discardableResult
    public func send(bytes: [UInt8]) -> Bool {
        return bytes.withUnsafeBytes { Glibc.send(descriptor, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            == bytes.count
    }

    /// Everything the server sends until it closes the connection or `seconds` pass.
    public func readAll(seconds: Double) -> String {
        var data = [UInt8]()
        let deadline = Date().addingTimeInterval(seconds)
        var buffer = [UInt8](repeating: 0, count: 4096)
        while Date() < deadline {
            var entry = pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)
            let milliseconds = Int32(max(1, deadline.timeIntervalSinceNow * 1000))
            guard poll(&entry, 1, milliseconds) > 0 else { break }
            let count = recv(descriptor, &buffer, buffer.count, 0)
            if count <= 0 { break }
            data += buffer[0..<count]
        }
        return String(decoding: data, as: UTF8.self)
    }

    /// What the server sends within `seconds`, at most `limit` bytes, without waiting for it to close.
    public func read(upTo limit: Int, seconds: Double) -> [UInt8] {
        var data = [UInt8]()
        let deadline = Date().addingTimeInterval(seconds)
        var buffer = [UInt8](repeating: 0, count: 4096)
        while data.count < limit, Date() < deadline {
            var entry = pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)
            let milliseconds = Int32(max(1, deadline.timeIntervalSinceNow * 1000))
            guard poll(&entry, 1, milliseconds) > 0 else { break }
            let count = recv(descriptor, &buffer, min(buffer.count, limit - data.count), 0)
            if count <= 0 { break }
            data += buffer[0..<count]
        }
        return data
    }

    /// What the server sends until it holds `marker`, closes the connection, or `seconds` pass.
    public func read(until marker: String, seconds: Double) -> String {
        var text = ""
        let deadline = Date().addingTimeInterval(seconds)
        while !text.contains(marker), Date() < deadline {
            let piece = read(upTo: 4096, seconds: min(0.05, max(0, deadline.timeIntervalSinceNow)))
            text += String(decoding: piece, as: UTF8.self)
        }
        return text
    }

    /// Closes the connection at once (a client that goes away).
    public func closeNow() { shutdown(descriptor, Int32(SHUT_RDWR)) }

    /// Whether the server closed the connection within `seconds` (without sending anything first).
    public func closedByServer(within seconds: Double) -> Bool {
        var entry = pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)
        guard poll(&entry, 1, Int32(seconds * 1000)) > 0 else { return false }
        var byte: UInt8 = 0
        return recv(descriptor, &byte, 1, Int32(MSG_PEEK)) <= 0
    }

    /// A complete request over a Unix socket, with everything answered.
    public static func exchange(_ request: String, unixSocket path: String, seconds: Double = 5) throws -> String {
        let client = try SocketClient(unixSocket: path)
        client.send(request)
        return client.readAll(seconds: seconds)
    }

    /// A complete request, with the answer's status line (empty when the connection closed without one).
    public static func exchange(_ request: String, port: UInt16, from source: String? = nil, seconds: Double = 5) throws
        -> String
    {
        let client = try SocketClient(port: port, from: source)
        client.send(request)
        return client.readAll(seconds: seconds)
    }
}
