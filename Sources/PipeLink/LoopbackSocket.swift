import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// The few socket calls the relay and its probe need, on 127.0.0.1 only.
public enum LoopbackSocket {
    /// A listening socket on `port` (0: one the kernel picks) and the port it got.
    public static func listen(port: Int) throws -> (socket: Int32, port: Int) {
        let listener = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard listener >= 0 else { throw LinkFailure("cannot open a socket: \(String(cString: strerror(errno)))") }
        var reuse: Int32 = 1
        setsockopt(listener, SOL_SOCKET, SO_REUSEADDR, &reuse, socklen_t(MemoryLayout<Int32>.size))
        var address = loopback(port: port)
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { pointer -> Int32 in
                guard bind(listener, pointer, length) == 0, Glibc.listen(listener, 64) == 0 else { return -1 }
                return getsockname(listener, pointer, &length)
            }
        }
        guard bound == 0 else {
            let reason = String(cString: strerror(errno))
            close(listener)
            throw LinkFailure("cannot listen on 127.0.0.1:\(port): \(reason)")
        }
        return (listener, Int(UInt16(bigEndian: address.sin_port)))
    }

    public static func connect(port: Int) throws -> Int32 {
        let client = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard client >= 0 else { throw LinkFailure("cannot open a socket: \(String(cString: strerror(errno)))") }
        var address = loopback(port: port)
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                Glibc.connect(client, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        guard connected == 0 else {
            let reason = String(cString: strerror(errno))
            close(client)
            throw LinkFailure("cannot connect to 127.0.0.1:\(port): \(reason)")
        }
        noDelay(client)
        return client
    }

    /// Small writes (SSH's window adjustments, a probe's ping) leave at once: the relay does the delaying.
    public static func noDelay(_ socket: Int32) {
        var on: Int32 = 1
        setsockopt(socket, Int32(IPPROTO_TCP), TCP_NODELAY, &on, socklen_t(MemoryLayout<Int32>.size))
    }

    /// Writes all of `bytes`; false when the peer is gone.
    public static func sendAll(_ socket: Int32, _ bytes: UnsafeRawBufferPointer) -> Bool {
        var sent = 0
        while sent < bytes.count {
            let count = send(socket, bytes.baseAddress! + sent, bytes.count - sent, Int32(MSG_NOSIGNAL))
            if count < 0 && errno == EINTR { continue }
            guard count > 0 else { return false }
            sent += count
        }
        return true
    }

    /// Reads exactly `count` bytes into `buffer`; false at an early end.
    public static func receiveAll(_ socket: Int32, _ buffer: UnsafeMutableRawBufferPointer, count: Int) -> Bool {
        var received = 0
        while received < count {
            let got = recv(socket, buffer.baseAddress! + received, count - received, 0)
            if got < 0 && errno == EINTR { continue }
            guard got > 0 else { return false }
            received += got
        }
        return true
    }

    private static func loopback(port: Int) -> sockaddr_in {
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = UInt16(port).bigEndian
        return address
    }
}

/// The monotonic clock the relay paces by, in seconds.
enum MonotonicClock {
    static func now() -> Double {
        var time = timespec()
        clock_gettime(CLOCK_MONOTONIC, &time)
        return Double(time.tv_sec) + Double(time.tv_nsec) / 1e9
    }

    static func sleep(until deadline: Double) {
        guard deadline > now() else { return }
        var time = timespec(tv_sec: Int(deadline), tv_nsec: Int((deadline - deadline.rounded(.down)) * 1e9))
        while clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &time, nil) == EINTR {}
    }
}
