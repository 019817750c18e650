import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// A raw TCP client for tests that need to control timing byte by byte (a slow client, a body in pieces).
final class SocketClient {
    let descriptor: Int32

    init(port: UInt16) throws {
        descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = port.bigEndian
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let result = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                connect(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        guard result == 0 else { throw NSError(domain: "SocketClient", code: Int(errno)) }
    }

    deinit { close(descriptor) }

    /// Sends `text`; `false` when the server has closed the connection.
    @discardableResult
    func send(_ text: String) -> Bool {
        let bytes = Array(text.utf8)
        return bytes.withUnsafeBytes { Glibc.send(descriptor, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            == bytes.count
    }

    /// Everything the server sends until it closes the connection or `seconds` pass.
    func readAll(seconds: Double) -> String {
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
}
