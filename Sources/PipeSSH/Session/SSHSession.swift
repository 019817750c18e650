import CSSH2
import Foundation
import PipeCore

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// One SSH connection to one host: socket, libssh2 session, verified host key and login.
///
/// The host key is checked against `HostConfig.knownHostsFile` before any authentication; an unknown or changed
/// key ends the connection with `RemoteError` `.hostKeyUnknown` / `.hostKeyChanged`.
///
/// Thread rule: a session and everything opened on it (`SSHRemoteHost`, its channels) is used by one thread at a
/// time; libssh2 sessions are not thread-safe. Its waits are blocking `poll()` calls, so run it on a dedicated thread,
/// never inside Swift's cooperative thread pool.
public final class SSHSession {
    /// The host this session is connected to.
    public let host: HostConfig
    /// The host key, verified against the known_hosts file.
    public let hostKey: SSHHostKey
    /// The algorithms agreed with the host.
    public let methods: SSHNegotiatedMethods
    /// Seconds from the start of the TCP connection to a logged-in session.
    public private(set) var connectSeconds: Double = 0

    /// The verified host key's type, e.g. `ssh-ed25519`.
    public var hostKeyType: String { hostKey.type }
    /// The verified host key's fingerprint, `SHA256:<base64>`.
    public var hostKeyFingerprint: String { hostKey.fingerprint }
    /// `false` once the connection was lost or closed; a session does not reconnect by itself.
    public var isConnected: Bool { lostReason == nil && !isDisconnected }

    /// How often an idle session sends an SSH keepalive (while Pipe waits on it).
    static let keepaliveSeconds: UInt32 = 15
    /// libssh2 1.10 refuses packets above ~39,900 bytes and sends at most ~32,700 bytes per write call.
    static let maximumWrite = 32_700

    let raw: OpaquePointer
    let socket: SSHSocket
    private(set) var lostReason: String?
    private(set) var isDisconnected = false
    /// Channels opened and not yet freed: a command whose channel the host never closed keeps one open.
    private(set) var openChannels = 0
    private var quickestChannelOpenSeconds: Double?
    /// Channels ever opened on this session: none since a point in time means no command reached the host since.
    public private(set) var channelsOpened = 0

    private init(host: HostConfig, raw: OpaquePointer, socket: SSHSocket, hostKey: SSHHostKey) {
        self.host = host
        self.raw = raw
        self.socket = socket
        self.hostKey = hostKey
        func method(_ type: Int32) -> String {
            guard let name = libssh2_session_methods(raw, type) else { return "" }
            return String(cString: name)
        }
        methods = SSHNegotiatedMethods(
            keyExchange: method(LIBSSH2_METHOD_KEX), hostKey: method(LIBSSH2_METHOD_HOSTKEY),
            cipher: method(LIBSSH2_METHOD_CRYPT_CS), mac: method(LIBSSH2_METHOD_MAC_CS))
    }

    deinit {
        disconnect()
        libssh2_session_free(raw)
        socket.close()
    }

    /// Connects, verifies the host key against the known_hosts file, then logs in.
    ///
    /// - Parameters:
    ///   - host: the host; `connectTimeoutSeconds` bounds the TCP connection and the handshake, and again the login.
    ///   - environment: where `identityPassphraseEnvironment` and `SSH_AUTH_SOCK` are looked up.
    /// - Throws: `RemoteError` with kind `.unreachable`, `.timeout`, `.hostKeyUnknown`, `.hostKeyChanged` or
    ///   `.authentication`; its message says what to do next. Key material and passphrases never appear in it.
    ///   - algorithms: the ciphers and MACs to offer, fastest first (the default is what measurement chose).
    public static func connect(
        to host: HostConfig, environment: [String: String] = ProcessInfo.processInfo.environment,
        algorithms: SSHAlgorithms = .standard
    ) throws -> SSHSession {
        let started = MonotonicClock.seconds()
        let knownHostsPath = expandingHome(host.knownHostsFile, environment: environment)
        let knownHosts: KnownHostsFile
        do {
            knownHosts = try KnownHostsFile.load(path: knownHostsPath)
        } catch let unreadable as KnownHostsUnreadable {
            throw RemoteError(
                .hostKeyUnknown, host: host.name,
                "cannot read the known_hosts file \(unreadable.path) (\(unreadable.reason)); Pipe checks every "
                    + "host's key against it before logging in: fix its permissions or `knownHostsFile` in the hosts file"
            )
        }
        let session = try handshake(
            with: host, preferringHostKeys: knownHosts.keyTypes(address: host.address, port: host.port),
            algorithms: algorithms)
        let verdict = knownHosts.verdict(for: session.hostKey, address: host.address, port: host.port)
        if let refusal = HostKeyRefusal.error(for: verdict, key: session.hostKey, host: host, file: knownHosts) {
            session.disconnect(
                reason: SSH_DISCONNECT_HOST_KEY_NOT_VERIFIABLE, description: "Host key verification failed")
            throw refusal
        }
        try session.authenticate(environment: environment)
        // Only now: libssh2 1.10 fails the key exchange (-8) when keepalives are configured before the handshake.
        libssh2_keepalive_config(session.raw, 1, keepaliveSeconds)
        libssh2_session_set_blocking(session.raw, 0)
        session.connectSeconds = MonotonicClock.seconds() - started
        return session
    }

    /// Fetches the key a host presents, without checking it and without logging in (for `pipe hosts trust`).
    ///
    /// Show its fingerprint to a person before recording it with `SSHHostKey.knownHostsLine(address:port:)`.
    public static func fetchHostKey(of host: HostConfig) throws -> SSHHostKey {
        let session = try handshake(with: host, preferringHostKeys: [], algorithms: .standard)
        session.disconnect(description: "host key fetched")
        return session.hostKey
    }

    /// Ends the session politely (a no-op when already closed or lost). Channels still open fail afterwards.
    public func disconnect(description: String = "Pipe is done") {
        disconnect(reason: SSH_DISCONNECT_BY_APPLICATION, description: description)
    }

    private func disconnect(reason: Int32, description: String) {
        guard !isDisconnected else { return }
        isDisconnected = true
        guard lostReason == nil else { return }
        libssh2_session_set_blocking(raw, 1)
        libssh2_session_set_timeout(raw, 2000)
        _ = libssh2_session_disconnect_ex(raw, reason, description, "")
    }

    // MARK: - Handshake

    static let preferredKeyExchanges = [
        "curve25519-sha256", "curve25519-sha256@libssh.org", "ecdh-sha2-nistp256", "ecdh-sha2-nistp384",
        "ecdh-sha2-nistp521", "diffie-hellman-group16-sha512", "diffie-hellman-group18-sha512",
        "diffie-hellman-group14-sha256", "diffie-hellman-group-exchange-sha256",
    ]
    /// No `ssh-rsa` or `ssh-dss`: OpenSSH ≥ 8.8 no longer accepts SHA-1 host key signatures either.
    static let preferredHostKeys = ["ssh-ed25519", "ecdsa-sha2-nistp256", "ecdsa-sha2-nistp384", "ecdsa-sha2-nistp521"]

    private static func handshake(
        with host: HostConfig, preferringHostKeys knownTypes: [String], algorithms: SSHAlgorithms
    ) throws -> SSHSession {
        try SSHLibrary.initialize()
        let deadline = Deadline(secondsFromNow: host.connectTimeoutSeconds)
        let endpoint = "\(host.address):\(host.port)"
        let socket: SSHSocket
        do {
            socket = try SSHSocket.connect(host: host.address, port: host.port, deadline: deadline)
        } catch SSHSocket.Failure.resolve(let reason) {
            throw RemoteError(
                .unreachable, host: host.name,
                "cannot resolve the address \(host.address) (\(reason)); check `address` in the hosts file")
        } catch SSHSocket.Failure.connect(let reason) {
            throw RemoteError(
                .unreachable, host: host.name,
                "cannot connect to \(endpoint) (\(reason)); is the host up and its sshd listening on that port?")
        } catch {
            throw RemoteError(
                .unreachable, host: host.name,
                "no TCP connection to \(endpoint) within \(seconds(host.connectTimeoutSeconds)) "
                    + "(connectTimeoutSeconds); is the host up and reachable from here?")
        }

        guard let raw = libssh2_session_init_ex(nil, nil, nil, nil) else {
            throw RemoteError(.unreachable, host: host.name, "libssh2 could not allocate a session (out of memory?)")
        }
        func fail(_ kind: RemoteError.Kind, _ message: String) -> RemoteError {
            libssh2_session_free(raw)
            socket.close()
            return RemoteError(kind, host: host.name, message)
        }
        _ = libssh2_session_callback_set(
            raw, LIBSSH2_CALLBACK_RECV, unsafeBitCast(SSHSocket.quickAckReceive, to: UnsafeMutableRawPointer.self))
        let hostKeys =
            knownTypes.filter(preferredHostKeys.contains) + preferredHostKeys.filter { !knownTypes.contains($0) }
        let preferences: [(Int32, [String], String)] = [
            (LIBSSH2_METHOD_KEX, preferredKeyExchanges, "key exchange"),
            (LIBSSH2_METHOD_HOSTKEY, hostKeys, "host key"),
            (LIBSSH2_METHOD_CRYPT_CS, algorithms.ciphers, "cipher"),
            (LIBSSH2_METHOD_CRYPT_SC, algorithms.ciphers, "cipher"),
            (LIBSSH2_METHOD_MAC_CS, algorithms.macs, "MAC"), (LIBSSH2_METHOD_MAC_SC, algorithms.macs, "MAC"),
        ]
        for (method, wanted, what) in preferences {
            let supported = supportedAlgorithms(raw, method)
            let usable = wanted.filter(supported.contains)
            guard !usable.isEmpty, libssh2_session_method_pref(raw, method, usable.joined(separator: ",")) == 0 else {
                throw fail(
                    .unreachable,
                    "libssh2 \(SSHLibrary.version) supports none of the \(what) algorithms Pipe accepts "
                        + "(\(wanted.joined(separator: ", "))); it offers \(supported.joined(separator: ", "))")
            }
        }
        _ = libssh2_session_method_pref(raw, LIBSSH2_METHOD_COMP_CS, "none")
        _ = libssh2_session_method_pref(raw, LIBSSH2_METHOD_COMP_SC, "none")

        // Blocking with libssh2's own timeout for the handshake and the login: both are bounded sequences of
        // exchanges; channels later run non-blocking under Pipe's own poll loop.
        libssh2_session_set_blocking(raw, 1)
        libssh2_session_set_timeout(raw, max(1, Int(deadline.remaining(cappedAt: 86_400) * 1000)))
        let status = libssh2_session_handshake(raw, socket.descriptor)
        guard status == 0 else {
            let detail = lastErrorText(raw)
            if status == LIBSSH2_ERROR_TIMEOUT || deadline.hasPassed {
                throw fail(
                    .timeout,
                    "the SSH handshake with \(endpoint) did not finish within \(seconds(host.connectTimeoutSeconds)) "
                        + "(connectTimeoutSeconds): is an SSH server listening there? (\(detail))")
            }
            if status == LIBSSH2_ERROR_KEX_FAILURE || status == LIBSSH2_ERROR_METHOD_NONE {
                throw fail(
                    .unreachable,
                    "the SSH handshake with \(endpoint) failed: no algorithms in common (\(detail)). Pipe "
                        + "(libssh2 \(SSHLibrary.version)) needs curve25519 or ECDH key exchange, an ed25519 or ECDSA "
                        + "host key, aes-ctr and hmac-sha2")
            }
            throw fail(.unreachable, "the SSH handshake with \(endpoint) failed: \(detail) (libssh2 error \(status))")
        }
        var length = 0
        var type: Int32 = 0
        guard let pointer = libssh2_session_hostkey(raw, &length, &type),
            let key = SSHHostKey(blob: Data(bytes: pointer, count: length))
        else {
            throw fail(.hostKeyUnknown, "\(endpoint) presented no host key libssh2 could read; refusing to continue")
        }
        return SSHSession(host: host, raw: raw, socket: socket, hostKey: key)
    }

    /// The ciphers and MACs this libssh2 can use (not all of them are offered by every host).
    public static func supportedAlgorithms() throws -> SSHAlgorithms {
        try SSHLibrary.initialize()
        guard let raw = libssh2_session_init_ex(nil, nil, nil, nil) else { return SSHAlgorithms(ciphers: [], macs: []) }
        defer { libssh2_session_free(raw) }
        return SSHAlgorithms(
            ciphers: supportedAlgorithms(raw, LIBSSH2_METHOD_CRYPT_CS),
            macs: supportedAlgorithms(raw, LIBSSH2_METHOD_MAC_CS))
    }

    private static func supportedAlgorithms(_ raw: OpaquePointer, _ method: Int32) -> [String] {
        var list: UnsafeMutablePointer<UnsafePointer<CChar>?>?
        let count = libssh2_session_supported_algs(raw, method, &list)
        guard count > 0, let list else { return [] }
        defer { libssh2_free(raw, list) }
        return (0..<Int(count)).compactMap { list[$0].map { String(cString: $0) } }
    }

    // MARK: - Channels, waiting and errors (used by channels)

    /// A channel opened in `seconds`: one round trip to sshd and back, the quickest of which bounds the link's.
    func channelDidOpen(afterSeconds seconds: Double) {
        openChannels += 1
        channelsOpened += 1
        quickestChannelOpenSeconds = min(quickestChannelOpenSeconds ?? seconds, seconds)
    }

    /// The connection's round trip: the kernel's TCP estimate, or the quickest channel open when that is longer.
    /// Behind a TCP proxy or jump host the kernel only sees the first hop, so its estimate alone can be ≈ 0 for a
    /// host far away.
    var roundTripSeconds: Double? {
        switch (socket.smoothedRoundTripSeconds, quickestChannelOpenSeconds) {
        case (let kernel?, let channel?): max(kernel, channel)
        case (let kernel?, nil): kernel
        case (nil, let channel): channel
        }
    }

    func channelWasFreed() {
        openChannels -= 1
    }

    /// Waits until libssh2 can make progress on the socket or `maxSeconds` pass; `others` are polled alongside and
    /// get their `revents` filled. Sends a keepalive when one is due.
    func waitForSocket(maxSeconds: Double, others: inout [pollfd]) {
        let directions = libssh2_session_block_directions(raw)
        var events: Int16 = 0
        if directions & LIBSSH2_SESSION_BLOCK_INBOUND != 0 { events |= Int16(POLLIN) }
        if directions & LIBSSH2_SESSION_BLOCK_OUTBOUND != 0 { events |= Int16(POLLOUT) }
        if events == 0 { events = Int16(POLLIN) }
        var entries = [pollfd(fd: socket.descriptor, events: events, revents: 0)] + others
        let milliseconds = Int32((maxSeconds * 1000).rounded(.up))
        if poll(&entries, nfds_t(entries.count), milliseconds) > 0 {
            for index in others.indices { others[index].revents = entries[index + 1].revents }
        }
        var nextKeepalive: Int32 = 0
        _ = libssh2_keepalive_send(raw, &nextKeepalive)
    }

    /// `waitForSocket` with nothing else to watch.
    func waitForSocket(maxSeconds: Double) {
        var none = [pollfd]()
        waitForSocket(maxSeconds: maxSeconds, others: &none)
    }

    /// Throws when the session can no longer be used.
    func ensureUsable() throws {
        if let lostReason {
            throw RemoteError(
                .connectionLost, host: host.name,
                "the connection to \(host.endpoint) was lost earlier (\(lostReason)); reconnect to continue")
        }
        if isDisconnected {
            throw RemoteError(.connectionLost, host: host.name, "the session with \(host.endpoint) was closed")
        }
    }

    /// libssh2 errors after which the transport is unusable.
    private static let transportErrors: Set<Int32> = [
        LIBSSH2_ERROR_SOCKET_NONE, LIBSSH2_ERROR_BANNER_RECV, LIBSSH2_ERROR_BANNER_SEND, LIBSSH2_ERROR_INVALID_MAC,
        LIBSSH2_ERROR_KEX_FAILURE, LIBSSH2_ERROR_SOCKET_SEND, LIBSSH2_ERROR_KEY_EXCHANGE_FAILURE,
        LIBSSH2_ERROR_TIMEOUT, LIBSSH2_ERROR_DECRYPT, LIBSSH2_ERROR_SOCKET_DISCONNECT, LIBSSH2_ERROR_PROTO,
        LIBSSH2_ERROR_SOCKET_TIMEOUT, LIBSSH2_ERROR_SOCKET_RECV, LIBSSH2_ERROR_ENCRYPT, LIBSSH2_ERROR_BAD_SOCKET,
    ]

    /// The error for a failed libssh2 call; a transport failure marks the session lost.
    func failure(_ code: Int, while action: String) -> RemoteError {
        let detail = Self.lastErrorText(raw)
        if Self.transportErrors.contains(Int32(truncatingIfNeeded: code)) || lostReason != nil {
            if lostReason == nil { lostReason = detail }
            return RemoteError(
                .connectionLost, host: host.name,
                "the connection to \(host.endpoint) was lost while \(action) (\(detail)); nothing more can be done "
                    + "on this session: reconnect and try again")
        }
        return RemoteError(.commandFailed, host: host.name, "\(action) failed: \(detail) (libssh2 error \(code))")
    }

    static func lastErrorText(_ raw: OpaquePointer) -> String {
        var message: UnsafeMutablePointer<CChar>?
        var length: Int32 = 0
        _ = libssh2_session_last_error(raw, &message, &length, 0)
        guard let message, length > 0 else { return "no detail from libssh2" }
        return String(cString: message)
    }

    static func seconds(_ value: Double) -> String {
        value == value.rounded() ? "\(Int(value)) s" : "\(value) s"
    }

    /// `~/…` in paths from the hosts file, resolved against `HOME`.
    static func expandingHome(_ path: String, environment: [String: String]) -> String {
        guard path == "~" || path.hasPrefix("~/") else { return path }
        let home = environment["HOME"] ?? NSHomeDirectory()
        return home + path.dropFirst()
    }
}
