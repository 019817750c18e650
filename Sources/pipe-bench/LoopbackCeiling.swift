import Foundation
import PipeLink

#if canImport(Glibc)
    import Glibc
#endif

/// Loopback TCP throughput: one thread writes `megabytes` MB in 1 MiB writes to another that reads them — the most
/// any SSH transfer on this machine could move.
enum LoopbackCeiling {
    static func measure(megabytes: Int) throws {
        let (listener, port) = try LoopbackSocket.listen(port: 0)
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
        let client = try LoopbackSocket.connect(port: port)
        let chunk = [UInt8](repeating: 7, count: 1 << 20)
        let started = Date()
        var sent = 0
        while sent < total {
            let count = min(chunk.count, total - sent)
            guard chunk.withUnsafeBytes({ LoopbackSocket.sendAll(client, .init(rebasing: $0[0..<count])) }) else {
                throw BenchFailure("loopback send failed")
            }
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
