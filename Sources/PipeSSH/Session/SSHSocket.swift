import CSSH2

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// The TCP connection under one SSH session: connected with a timeout and tuned for many small exchanges.
final class SSHSocket {
    /// Why a connection could not be made, in words for the user.
    enum Failure: Error {
        case resolve(String)
        case connect(String)
        case timedOut
    }

    let descriptor: Int32
    private var isClosed = false

    private init(descriptor: Int32) {
        self.descriptor = descriptor
    }

    deinit { close() }

    func close() {
        guard !isClosed else { return }
        isClosed = true
        _ = systemClose(descriptor)
    }

    /// Whether anything waits to be read — bytes, the end of the stream or an error — found without waiting.
    var hasPendingInput: Bool {
        var entry = pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)
        // -1 (poll itself failed) counts as pending: the caller then trusts the connection no further.
        return poll(&entry, 1, 0) != 0
    }

    /// The kernel's smoothed round-trip time of the connection (`TCP_INFO`), once a few packets went both ways;
    /// `nil` where the kernel does not say.
    var smoothedRoundTripSeconds: Double? {
        #if canImport(Glibc)
            var info = tcp_info()
            var length = socklen_t(MemoryLayout<tcp_info>.size)
            guard getsockopt(descriptor, Int32(IPPROTO_TCP), TCP_INFO, &info, &length) == 0, info.tcpi_rtt > 0 else {
                return nil
            }
            return Double(info.tcpi_rtt) / 1_000_000
        #else
            return nil
        #endif
    }

    /// Connects to the first address of `host` that accepts before `deadline`, trying each resolved address in turn.
    static func connect(host: String, port: Int, deadline: Deadline) throws -> SSHSocket {
        var hints = addrinfo()
        hints.ai_family = AF_UNSPEC
        #if canImport(Glibc)
            hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
        #else
            hints.ai_socktype = SOCK_STREAM
        #endif
        hints.ai_protocol = Int32(IPPROTO_TCP)
        var list: UnsafeMutablePointer<addrinfo>?
        let status = getaddrinfo(host, String(port), &hints, &list)
        guard status == 0, let first = list else {
            throw Failure.resolve(String(cString: gai_strerror(status)))
        }
        defer { freeaddrinfo(list) }

        var lastFailure = Failure.connect("no address")
        var cursor: UnsafeMutablePointer<addrinfo>? = first
        while let info = cursor {
            cursor = info.pointee.ai_next
            do {
                return try connect(to: info.pointee, deadline: deadline)
            } catch let failure as Failure {
                lastFailure = failure
                if case .timedOut = failure { break }
            }
        }
        throw lastFailure
    }

    private static func connect(to info: addrinfo, deadline: Deadline) throws -> SSHSocket {
        let descriptor = socket(info.ai_family, info.ai_socktype, info.ai_protocol)
        guard descriptor >= 0 else { throw Failure.connect(String(cString: strerror(errno))) }
        let socket = SSHSocket(descriptor: descriptor)
        // The socket must not leak into local `tar` children, and libssh2 wants it non-blocking anyway.
        _ = fcntl(descriptor, F_SETFD, FD_CLOEXEC)
        _ = fcntl(descriptor, F_SETFL, fcntl(descriptor, F_GETFL) | O_NONBLOCK)

        if systemConnect(descriptor, info.ai_addr, info.ai_addrlen) != 0 {
            guard errno == EINPROGRESS else { throw Failure.connect(String(cString: strerror(errno))) }
            var entry = pollfd(fd: descriptor, events: Int16(POLLOUT), revents: 0)
            while true {
                let milliseconds = Int32(deadline.remaining(cappedAt: 3600) * 1000)
                let ready = poll(&entry, 1, milliseconds)
                if ready > 0 { break }
                if ready < 0 && errno == EINTR { continue }
                if ready < 0 { throw Failure.connect(String(cString: strerror(errno))) }
                throw Failure.timedOut
            }
            var pending: Int32 = 0
            var length = socklen_t(MemoryLayout<Int32>.size)
            getsockopt(descriptor, SOL_SOCKET, SO_ERROR, &pending, &length)
            guard pending == 0 else { throw Failure.connect(String(cString: strerror(pending))) }
        }
        socket.tune()
        return socket
    }

    /// Socket options that make a remote command cost milliseconds, and a dead host show up within a minute.
    private func tune() {
        // Without TCP_NODELAY every exec on a warm session waits ~45 ms for Nagle.
        setOption(Int32(IPPROTO_TCP), TCP_NODELAY, 1)
        setOption(SOL_SOCKET, SO_KEEPALIVE, 1)
        #if os(Linux)
            setOption(Int32(IPPROTO_TCP), TCP_KEEPIDLE, 30)
            setOption(Int32(IPPROTO_TCP), TCP_KEEPINTVL, 10)
            setOption(Int32(IPPROTO_TCP), TCP_KEEPCNT, 3)
            // With SSH keepalives going out every `keepaliveSeconds`, unacknowledged data for this long means the
            // host is gone: the next libssh2 call then fails instead of waiting for the layer's whole timeout.
            setOption(Int32(IPPROTO_TCP), TCP_USER_TIMEOUT, 60_000)
        #endif
    }

    private func setOption(_ level: Int32, _ name: Int32, _ value: Int32) {
        var value = value
        _ = setsockopt(descriptor, level, name, &value, socklen_t(MemoryLayout<Int32>.size))
    }

    /// libssh2's receive callback: a plain `recv` that re-arms TCP_QUICKACK after every read.
    ///
    /// The first exchanges of a fresh session otherwise wait ~45 ms each (sshd's Nagle meeting our delayed ACK);
    /// the kernel clears QUICKACK on its own, hence after every `recv`.
    static let quickAckReceive:
        @convention(c) (
            libssh2_socket_t, UnsafeMutableRawPointer?, Int, Int32, UnsafeMutablePointer<UnsafeMutableRawPointer?>?
        ) -> Int = { socket, buffer, length, flags, _ in
            let received = recv(socket, buffer, length, flags)
            if received < 0 { return -Int(errno) }
            #if os(Linux)
                var one: Int32 = 1
                _ = setsockopt(socket, Int32(IPPROTO_TCP), TCP_QUICKACK, &one, socklen_t(MemoryLayout<Int32>.size))
            #endif
            return received
        }
}

// The C functions are shadowed by methods of the same name inside the type.
private func systemClose(_ descriptor: Int32) -> Int32 { close(descriptor) }
private func systemConnect(_ descriptor: Int32, _ address: UnsafePointer<sockaddr>!, _ length: socklen_t) -> Int32 {
    connect(descriptor, address, length)
}
