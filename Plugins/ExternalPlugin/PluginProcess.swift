import Foundation
import PipeCore

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// An external plugin's process on the coordinator, in a process group of its own, talked to over its stdin,
/// stdout and stderr without blocking.
///
/// Not Foundation's `Process`: the plugin must lead its own process group (so a timeout or Ctrl-C kills everything
/// it started, and the terminal's Ctrl-C reaches Pipe, not the plugin), and must get default signal handling back
/// (`pipe` ignores SIGINT and SIGTERM, and ignored signals survive `exec`). Its stdin is a socket pair: a plugin
/// that exits without reading makes a write fail with EPIPE here (`MSG_NOSIGNAL`) instead of killing the
/// coordinator with SIGPIPE.
final class PluginProcess {
    /// How a conversation with the plugin ended.
    enum Ending: Equatable {
        case exited(Int32)
        case signaled(Int32)
        /// The time limit ran out; the process group was killed.
        case timedOut
        /// The run was cancelled; the process group was killed.
        case cancelled
        /// The line handler refused what the plugin wrote; the process group was killed.
        case stopped(String)
    }

    /// What the line handler wants next.
    enum LineResponse {
        case carryOn
        /// Write these bytes to the plugin's stdin.
        case reply(Data)
        /// The plugin broke the protocol: kill it and end with `.stopped(reason)`.
        case stop(String)
    }

    let pid: pid_t
    private var input: Int32
    private var output: Int32
    private var errors: Int32
    private var reaped: Ending?

    /// Seconds between SIGTERM and SIGKILL when the group is stopped.
    static let terminationGrace: Double = 2

    private init(pid: pid_t, input: Int32, output: Int32, errors: Int32) {
        self.pid = pid
        self.input = input
        self.output = output
        self.errors = errors
    }

    deinit {
        if reaped == nil {
            stopGroup()
        }
        for descriptor in [input, output, errors] where descriptor >= 0 { close(descriptor) }
    }

    /// Starts `executable` with `arguments` in `workingDirectory`, with exactly `environment`.
    static func start(
        executable: URL, arguments: [String], environment: [String: String], workingDirectory: URL
    ) throws(ExternalPluginError) -> PluginProcess {
        var stdinPair: [Int32] = [-1, -1]
        #if canImport(Glibc)
            let socketType = Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue)
        #else
            let socketType = SOCK_STREAM
        #endif
        guard socketpair(AF_UNIX, socketType, 0, &stdinPair) == 0 else {
            throw .cannotStart(executable.path, "no socket pair: \(String(cString: strerror(errno)))")
        }
        var stdoutPipe: [Int32] = [-1, -1]
        var stderrPipe: [Int32] = [-1, -1]
        // `pipe2` is a GNU extension Swift's Glibc module does not export: close-on-exec is set right after.
        guard pipe(&stdoutPipe) == 0, pipe(&stderrPipe) == 0 else {
            let reason = String(cString: strerror(errno))
            for descriptor in stdinPair + stdoutPipe + stderrPipe where descriptor >= 0 { close(descriptor) }
            throw .cannotStart(executable.path, "no pipe: \(reason)")
        }
        for descriptor in stdoutPipe + stderrPipe { _ = fcntl(descriptor, F_SETFD, FD_CLOEXEC) }
        let (ourInput, childInput) = (stdinPair[0], stdinPair[1])
        let (ourOutput, childOutput) = (stdoutPipe[0], stdoutPipe[1])
        let (ourErrors, childErrors) = (stderrPipe[0], stderrPipe[1])
        defer {
            close(childInput)
            close(childOutput)
            close(childErrors)
        }

        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        // dup2 clears close-on-exec on the copies; the originals close at exec.
        posix_spawn_file_actions_adddup2(&actions, childInput, 0)
        posix_spawn_file_actions_adddup2(&actions, childOutput, 1)
        posix_spawn_file_actions_adddup2(&actions, childErrors, 2)
        let chdirStatus = workingDirectory.path.withCString { addChdir(&actions, $0) }
        guard chdirStatus == 0 else {
            for descriptor in [ourInput, ourOutput, ourErrors] { close(descriptor) }
            throw .cannotStart(
                executable.path, "cannot enter \(workingDirectory.path): \(String(cString: strerror(chdirStatus)))")
        }

        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        var defaults = sigset_t()
        sigemptyset(&defaults)
        for signalNumber in [SIGTERM, SIGINT, SIGPIPE, SIGHUP, SIGQUIT] { sigaddset(&defaults, signalNumber) }
        posix_spawnattr_setsigdefault(&attributes, &defaults)
        var emptyMask = sigset_t()
        sigemptyset(&emptyMask)
        posix_spawnattr_setsigmask(&attributes, &emptyMask)
        posix_spawnattr_setpgroup(&attributes, 0)
        posix_spawnattr_setflags(
            &attributes, Int16(POSIX_SPAWN_SETSIGDEF | POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETPGROUP))

        let argv = ([executable.path] + arguments).map { strdup($0) } + [nil]
        let envp = environment.sorted { $0.key < $1.key }.map { strdup("\($0.key)=\($0.value)") } + [nil]
        defer {
            for pointer in argv + envp { free(pointer) }
        }
        var pid: pid_t = 0
        let status = posix_spawn(&pid, executable.path, &actions, &attributes, argv, envp)
        guard status == 0 else {
            for descriptor in [ourInput, ourOutput, ourErrors] { close(descriptor) }
            throw .cannotStart(executable.path, String(cString: strerror(status)))
        }
        for descriptor in [ourInput, ourOutput, ourErrors] {
            _ = fcntl(descriptor, F_SETFL, fcntl(descriptor, F_GETFL) | O_NONBLOCK)
        }
        return PluginProcess(pid: pid, input: ourInput, output: ourOutput, errors: ourErrors)
    }

    /// Writes `initialInput`, then hands every complete stdout line to `onLine` and every stderr chunk to
    /// `onStderr` until the plugin exits, the time runs out, the run is cancelled or `onLine` says stop.
    ///
    /// Whatever ends the conversation, nothing of the plugin's process group is left running afterwards.
    func communicate(
        initialInput: Data, closeInputAfterwards: Bool, timeoutSeconds: Double?, cancellation: CancellationToken?,
        onLine: (String) -> LineResponse, onStderr: (Data) -> Void
    ) -> Ending {
        let deadline = timeoutSeconds.map { Date().addingTimeInterval($0) }
        var pendingInput = [UInt8](initialInput)
        var closeInputWhenDrained = closeInputAfterwards
        var lineBuffer: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 64 * 1024)
        var outputOpen = true
        var errorsOpen = true
        var leaderEnded: Ending?
        var leaderEndedAt: Date?
        var groupKilled = false

        func flushLines(final: Bool) -> Ending? {
            while let newline = lineBuffer.firstIndex(of: UInt8(ascii: "\n")) {
                let line = String(decoding: lineBuffer[..<newline], as: UTF8.self)
                lineBuffer.removeSubrange(...newline)
                if let ending = handle(line) { return ending }
            }
            if final && !lineBuffer.isEmpty {
                let line = String(decoding: lineBuffer, as: UTF8.self)
                lineBuffer.removeAll()
                return handle(line)
            }
            return nil
        }
        func handle(_ line: String) -> Ending? {
            switch onLine(line) {
            case .carryOn: return nil
            case .reply(let data):
                pendingInput.append(contentsOf: data)
                return nil
            case .stop(let reason):
                stopGroup()
                return .stopped(reason)
            }
        }

        while true {
            if cancellation?.isCancelled == true {
                stopGroup()
                return .cancelled
            }
            if let deadline, Date() >= deadline {
                stopGroup()
                return .timedOut
            }
            if pendingInput.isEmpty && closeInputWhenDrained && input >= 0 {
                shutdown(input, Int32(SHUT_WR))
                closeInputWhenDrained = false
            }
            if !outputOpen && !errorsOpen {
                let ending = leaderEnded ?? waitForLeader(until: deadline, cancellation: cancellation)
                // Children the plugin left behind go with it.
                kill(-pid, SIGKILL)
                return ending
            }
            if let endedAt = leaderEndedAt, let leaderEnded {
                let since = Date().timeIntervalSince(endedAt)
                if since > 1 && !groupKilled {
                    // The plugin exited but something it started still holds its output open: stop that too.
                    kill(-pid, SIGKILL)
                    groupKilled = true
                } else if since > 3 {
                    // Held open by a process outside the group (it left it): stop listening.
                    return flushLines(final: true) ?? leaderEnded
                }
            }

            var descriptors: [pollfd] = []
            if outputOpen { descriptors.append(pollfd(fd: output, events: Int16(POLLIN), revents: 0)) }
            if errorsOpen { descriptors.append(pollfd(fd: errors, events: Int16(POLLIN), revents: 0)) }
            if !pendingInput.isEmpty && input >= 0 {
                descriptors.append(pollfd(fd: input, events: Int16(POLLOUT), revents: 0))
            }
            _ = poll(&descriptors, nfds_t(descriptors.count), 100)

            if !pendingInput.isEmpty && input >= 0 {
                let written = pendingInput.withUnsafeBytes {
                    send(input, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL))
                }
                if written > 0 {
                    pendingInput.removeFirst(written)
                } else if written < 0 && errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR {
                    // The plugin closed its stdin: it will not read replies; what it writes still counts.
                    pendingInput.removeAll()
                    close(input)
                    input = -1
                }
            }
            if errorsOpen {
                while true {
                    let count = buffer.withUnsafeMutableBytes { read(errors, $0.baseAddress, $0.count) }
                    if count > 0 {
                        onStderr(Data(buffer[0..<count]))
                    } else if count == 0 {
                        errorsOpen = false
                        break
                    } else {
                        if errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR { errorsOpen = false }
                        break
                    }
                }
            }
            if outputOpen {
                while true {
                    let count = buffer.withUnsafeMutableBytes { read(output, $0.baseAddress, $0.count) }
                    if count > 0 {
                        lineBuffer.append(contentsOf: buffer[0..<count])
                        if let ending = flushLines(final: false) { return ending }
                    } else if count == 0 {
                        outputOpen = false
                        if let ending = flushLines(final: true) { return ending }
                        break
                    } else {
                        if errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR { outputOpen = false }
                        break
                    }
                }
            }
            if leaderEnded == nil, let ending = reapIfEnded() {
                leaderEnded = ending
                leaderEndedAt = Date()
            }
        }
    }

    /// The leader's end, if it has ended (reaped once).
    private func reapIfEnded() -> Ending? {
        if let reaped { return reaped }
        var status: Int32 = 0
        let result = waitpid(pid, &status, WNOHANG)
        guard result == pid else { return nil }
        let ending = Self.decode(status)
        reaped = ending
        return ending
    }

    private func waitForLeader(until deadline: Date?, cancellation: CancellationToken?) -> Ending {
        while true {
            if let ending = reapIfEnded() { return ending }
            if cancellation?.isCancelled == true {
                stopGroup()
                return .cancelled
            }
            if let deadline, Date() >= deadline {
                stopGroup()
                return .timedOut
            }
            usleep(10_000)
        }
    }

    /// SIGTERM to the whole group, SIGKILL after the grace period, and the leader reaped.
    func stopGroup() {
        kill(-pid, SIGTERM)
        let giveUp = Date().addingTimeInterval(Self.terminationGrace)
        while reapIfEnded() == nil && Date() < giveUp { usleep(10_000) }
        kill(-pid, SIGKILL)
        if reaped == nil {
            var status: Int32 = 0
            while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
            reaped = Self.decode(status)
        }
    }

    private static func decode(_ status: Int32) -> Ending {
        let low = status & 0x7f
        if low == 0 { return .exited((status >> 8) & 0xff) }
        return .signaled(low)
    }

    private typealias AddChdir =
        @convention(c) (UnsafeMutablePointer<posix_spawn_file_actions_t>, UnsafePointer<CChar>) -> Int32

    /// `posix_spawn_file_actions_addchdir_np` (glibc ≥ 2.29), looked up at run time: Swift's Glibc module does not
    /// export the GNU extension.
    private static let addChdirFunction: AddChdir? = {
        guard let symbol = dlsym(UnsafeMutableRawPointer(bitPattern: 0), "posix_spawn_file_actions_addchdir_np")
        else { return nil }
        return unsafeBitCast(symbol, to: AddChdir.self)
    }()

    private static func addChdir(
        _ actions: UnsafeMutablePointer<posix_spawn_file_actions_t>, _ path: UnsafePointer<CChar>
    ) -> Int32 {
        guard let addChdirFunction else { return ENOSYS }
        return addChdirFunction(actions, path)
    }
}
