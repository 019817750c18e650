import CSSH2
import PipeCore

/// One exec channel of an `SSHSession`, driven without blocking.
///
/// It holds its session strongly, so the session (and its libssh2 memory) outlives it; same thread rule.
final class SSHChannel {
    enum Stream: Int32 {
        case stdout = 0
        case stderr = 1  // SSH_EXTENDED_DATA_STDERR
    }

    enum ReadResult {
        case bytes(Int)
        case wouldBlock
        case endOfStream
    }

    /// 2 MiB: windows from 512 KiB to 8 MiB perform the same here; bigger ones only make sshd buffer more.
    static let windowSize: UInt32 = 2 * 1024 * 1024
    static let packetSize: UInt32 = 32_768

    let session: SSHSession
    private var handle: OpaquePointer?

    /// Opens a session channel, waiting at most until `deadline`.
    init(session: SSHSession, deadline: Deadline) throws {
        try session.ensureUsable()
        self.session = session
        let started = MonotonicClock.seconds()
        while true {
            if let opened = libssh2_channel_open_ex(
                session.raw, "session", 7, Self.windowSize, Self.packetSize, nil, 0)
            {
                handle = opened
                session.channelDidOpen(afterSeconds: MonotonicClock.seconds() - started)
                return
            }
            let status = libssh2_session_last_errno(session.raw)
            guard status == LIBSSH2_ERROR_EAGAIN else {
                throw session.failure(Int(status), while: "opening a channel")
            }
            try Self.checkTime(deadline, session: session, action: "opening a channel")
            session.waitForSocket(maxSeconds: deadline.remaining(cappedAt: 0.1))
        }
    }

    deinit { close(deadline: Deadline(secondsFromNow: 2)) }

    /// Starts `commandLine` through the login's shell.
    func exec(_ commandLine: String, deadline: Deadline) throws {
        try retrying("starting the command", deadline: deadline) { handle in
            commandLine.withCString { libssh2_channel_process_startup(handle, "exec", 4, $0, UInt32(strlen($0))) }
        }
    }

    /// Reads what is queued for `stream` into `buffer` without waiting.
    func read(_ stream: Stream, into buffer: UnsafeMutableRawBufferPointer) throws -> ReadResult {
        let handle = try usableHandle()
        let count = libssh2_channel_read_ex(
            handle, stream.rawValue, buffer.baseAddress?.assumingMemoryBound(to: CChar.self), buffer.count)
        if count > 0 { return .bytes(count) }
        if count == 0 { return .endOfStream }
        if count == Int(LIBSSH2_ERROR_EAGAIN) { return .wouldBlock }
        throw session.failure(count, while: "reading the command's output")
    }

    /// Sends as much of `bytes` as the window takes now (at most `SSHSession.maximumWrite`); 0 when it would block.
    func write(_ bytes: UnsafeRawBufferPointer) throws -> Int {
        let handle = try usableHandle()
        let count = libssh2_channel_write_ex(
            handle, 0, bytes.baseAddress?.assumingMemoryBound(to: CChar.self), min(bytes.count, SSHSession.maximumWrite)
        )
        if count >= 0 { return count }
        if count == Int(LIBSSH2_ERROR_EAGAIN) { return 0 }
        throw session.failure(count, while: "sending input to the command")
    }

    /// Tells the command its input has ended; `false` when it would block (call again).
    func sendEndOfInput() throws -> Bool {
        let status = libssh2_channel_send_eof(try usableHandle())
        if status == 0 { return true }
        if status == LIBSSH2_ERROR_EAGAIN { return false }
        throw session.failure(Int(status), while: "closing the command's input")
    }

    /// Whether libssh2 holds output of this channel that was read off the socket but not yet handed over: then the
    /// socket may stay silent although there is data to read, and waiting on it would stall.
    var hasQueuedOutput: Bool {
        guard let handle else { return false }
        var queued: UInt = 0
        var initial: UInt = 0
        _ = libssh2_channel_window_read_ex(handle, &queued, &initial)
        return queued > 0
    }

    /// Whether the host has closed the channel (after end of output), reading what arrived without waiting.
    func isClosedByHost() throws -> Bool {
        let status = libssh2_channel_wait_closed(try usableHandle())
        if status == 0 { return true }
        if status == LIBSSH2_ERROR_EAGAIN { return false }
        throw session.failure(Int(status), while: "waiting for the command to end")
    }

    /// How the command ended; meaningful once `isClosedByHost()` returned `true`.
    func exitStatus() -> RemoteExit {
        guard let handle else { return .lost("the channel was already closed") }
        var signal: UnsafeMutablePointer<CChar>?
        var length = 0
        if libssh2_channel_get_exit_signal(handle, &signal, &length, nil, nil, nil, nil) == 0, let signal {
            defer { libssh2_free(session.raw, signal) }
            if length > 0 { return .signaled(String(cString: signal)) }
        }
        return .exited(libssh2_channel_get_exit_status(handle))
    }

    /// Closes and frees the channel; gives up (leaving it to the session) if the host does not answer by `deadline`.
    func close(deadline: Deadline) {
        guard let handle else { return }
        self.handle = nil
        guard session.isConnected else {
            _ = libssh2_channel_free(handle)
            session.channelWasFreed()
            return
        }
        while true {
            let status = libssh2_channel_free(handle)
            if status != LIBSSH2_ERROR_EAGAIN {
                session.channelWasFreed()
                return
            }
            // Left to the session: it counts as open, so the session serves no other run (`reuseRefusal`).
            if deadline.hasPassed { return }
            session.waitForSocket(maxSeconds: deadline.remaining(cappedAt: 0.1))
        }
    }

    private func usableHandle() throws -> OpaquePointer {
        try session.ensureUsable()
        guard let handle else {
            throw RemoteError(.commandFailed, host: session.host.name, "the channel was already closed")
        }
        return handle
    }

    private func retrying(_ action: String, deadline: Deadline, _ call: (OpaquePointer) -> Int32) throws {
        while true {
            let status = call(try usableHandle())
            if status == 0 { return }
            guard status == LIBSSH2_ERROR_EAGAIN else { throw session.failure(Int(status), while: action) }
            try Self.checkTime(deadline, session: session, action: action)
            session.waitForSocket(maxSeconds: deadline.remaining(cappedAt: 0.1))
        }
    }

    private static func checkTime(_ deadline: Deadline, session: SSHSession, action: String) throws {
        guard deadline.hasPassed else { return }
        throw RemoteError(
            .timeout, host: session.host.name, "\(action) on \(session.host.endpoint) took longer than allowed")
    }
}
