import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// A chat's response URL for end-to-end tests: a tiny HTTP listener on 127.0.0.1 that answers every POST with 200
/// and keeps the `text` of each JSON body it was sent, in order of arrival.
final class ResponseReceiver: @unchecked Sendable {
    private(set) var port: UInt16 = 0
    private let listener: Int32
    private let lock = NSLock()
    private var received: [(at: Date, object: [String: Any])] = []
    private var thread: Thread?

    init() throws {
        listener = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { socketAddress in
                bind(listener, socketAddress, length) == 0 && listen(listener, 16) == 0
                    && getsockname(listener, socketAddress, &length) == 0
            }
        }
        guard bound else { throw NSError(domain: "ResponseReceiver", code: Int(errno)) }
        port = UInt16(bigEndian: address.sin_port)
        let thread = Thread { [weak self] in self?.serve() }
        self.thread = thread
        thread.start()
    }

    var url: String { "http://127.0.0.1:\(port)/commands/T1/1234/abcd" }

    /// The texts received so far.
    var texts: [String] {
        lock.lock()
        defer { lock.unlock() }
        return received.compactMap { $0.object["text"] as? String }
    }

    var objects: [[String: Any]] {
        lock.lock()
        defer { lock.unlock() }
        return received.map(\.object)
    }

    func stop() {
        shutdown(listener, Int32(SHUT_RDWR))
        close(listener)
    }

    private func serve() {
        while true {
            let connection = accept(listener, nil, nil)
            guard connection >= 0 else { return }
            handle(connection)
            close(connection)
        }
    }

    private func handle(_ connection: Int32) {
        var data = [UInt8]()
        var buffer = [UInt8](repeating: 0, count: 65536)
        var expected: Int?
        var headerEnd: Int?
        let deadline = Date().addingTimeInterval(5)
        while Date() < deadline {
            let count = recv(connection, &buffer, buffer.count, 0)
            if count <= 0 { break }
            data += buffer[0..<count]
            if headerEnd == nil, let range = findHeaderEnd(data) {
                headerEnd = range
                let head = String(decoding: data[0..<range], as: UTF8.self).lowercased()
                let lengthLine = head.split(separator: "\r\n").first { $0.hasPrefix("content-length:") }
                expected =
                    lengthLine.flatMap {
                        Int($0.dropFirst("content-length:".count).trimmingCharacters(in: .whitespaces))
                    } ?? 0
            }
            if let headerEnd, let expected, data.count >= headerEnd + expected { break }
        }
        guard let headerEnd, let expected, data.count >= headerEnd + expected else { return }
        let body = Data(data[headerEnd..<(headerEnd + expected)])
        if let object = try? JSONSerialization.jsonObject(with: body) as? [String: Any] {
            lock.lock()
            received.append((Date(), object))
            lock.unlock()
        }
        let answer = Array("HTTP/1.1 200 OK\r\nContent-Length: 2\r\nConnection: close\r\n\r\nok".utf8)
        _ = answer.withUnsafeBytes { send(connection, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
    }

    private func findHeaderEnd(_ data: [UInt8]) -> Int? {
        guard data.count >= 4 else { return nil }
        for index in 0...(data.count - 4)
        where data[index] == 13 && data[index + 1] == 10 && data[index + 2] == 13 && data[index + 3] == 10 {
            return index + 4
        }
        return nil
    }
}
