import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// Loopback TCP throughput: one thread writes `megabytes` MB in 1 MiB writes to another that reads them — the most
/// any SSH transfer on this machine could move.
enum LoopbackCeiling {
    static func measure(megabytes: Int) throws {
        let listener = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { pointer -> Int32 in
                guard bind(listener, pointer, length) == 0, listen(listener, 1) == 0 else { return -1 }
                return getsockname(listener, pointer, &length)
            }
        }
        guard bound == 0 else { throw BenchFailure("cannot listen on 127.0.0.1") }
        let total = megabytes * 1_000_000
        let reader = Thread {
            let connection = accept(listener, nil, nil)
            var buffer = [UInt8](repeating: 0, count: 1 << 20)
            var received = 0
            while received < total {
                let count = buffer.withUnsafeMutableBytes { recv(connection, $0.baseAddress, $0.count, 0) }
                if count <= 0 { break }
                received += count
            }
            close(connection)
        }
        reader.start()
        let client = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                connect(client, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        guard connected == 0 else { throw BenchFailure("cannot connect to the loopback listener") }
        let chunk = [UInt8](repeating: 7, count: 1 << 20)
        let started = Date()
        var sent = 0
        while sent < total {
            let count = chunk.withUnsafeBytes { send(client, $0.baseAddress, min($0.count, total - sent), 0) }
            guard count > 0 else { throw BenchFailure("loopback send failed") }
            sent += count
        }
        shutdown(client, Int32(SHUT_WR))
        while !reader.isFinished { usleep(1_000) }
        let seconds = Date().timeIntervalSince(started)
        close(client)
        close(listener)
        print("bytes=\(total) seconds=\(String(format: "%.3f", seconds)) MBps=\(Int(Double(total) / seconds / 1e6))")
    }
}
