import Foundation
import PipeBasics
import PipeCore

/// `RemoteHost` over one `SSHSession`: every call opens its own exec channel on that session.
///
/// Every command runs through `/bin/sh` as the leader of its own process group on the host (sshd's `setsid()`,
/// checked by `RemoteScript.groupLeader`), so a timeout or a cancellation kills the whole group over a second channel
/// — libssh2 1.10 cannot send a signal over a channel. Same thread rule as `SSHSession`.
public final class SSHRemoteHost: RemoteHost {
    /// The session every channel is opened on.
    public let session: SSHSession
    /// Seconds between SIGTERM and SIGKILL when a process group is stopped.
    public var terminationGraceSeconds: Double
    /// A transfer that moves no byte for this long is abandoned.
    public var transferStallSeconds: Double
    /// Where workspace syncs keep what this coordinator remembers between processes (`WorkspaceSyncMemory`: the
    /// manifest last sent to each host cache, the digests of local files); `nil` keeps it in this process only.
    public var syncStateDirectory: URL?
    /// Opens one more session to this host (its key checked again), for a download split across two sessions in
    /// two threads: libssh2 1.10 decrypts one channel at about 190–300 MB/s on one core, below what the link and the
    /// host's tar carry. `nil` never splits.
    public var secondSessionForDownloads: (@Sendable () throws -> SSHSession)?
    /// A download of a folder this big (and of at least two files) is split when `secondSessionForDownloads` is set:
    /// below it, the second login costs more than it saves (`bench/run`).
    public var splitDownloadMinimumBytes: Int64 = 32 << 20
    /// What workspace syncs remember in this process (tests give a host its own, as another coordinator's).
    var syncMemory = WorkspaceSyncMemory.shared
    /// Seconds allowed to open a channel and start a command.
    static let startSeconds: Double = 30
    /// Seconds a stopped command gets to announce its process group, and to end after its group was killed.
    static let settleSeconds: Double = 5

    /// Tests only: called with every chunk of a download's stream as it arrives, before it is digested — a fault
    /// injected between the host's digest and ours.
    var downloadChunkFault: ((inout [UInt8]) -> Void)?

    public init(session: SSHSession, terminationGraceSeconds: Double = 3, transferStallSeconds: Double = 120) {
        self.session = session
        self.terminationGraceSeconds = terminationGraceSeconds
        self.transferStallSeconds = transferStallSeconds
    }

    /// Connects with `SSHSession.connect(to:environment:)` and wraps the session.
    public convenience init(
        connectingTo host: HostConfig, environment: [String: String] = ProcessInfo.processInfo.environment
    ) throws {
        self.init(session: try SSHSession.connect(to: host, environment: environment))
    }

    /// The host's name from the hosts file, for messages.
    public var name: String { session.host.name }

    /// Runs a short command with `/bin/sh -c` and collects its output.
    ///
    /// When `timeoutSeconds` runs out, the command's process group is killed and the exit is `.timedOut`, with the
    /// output received until then. Throws `RemoteError` `.connectionLost` when the connection drops.
    public func capture(_ command: String, stdin: Data?, timeoutSeconds: Double) throws -> CapturedOutput {
        let deadline = Deadline(secondsFromNow: timeoutSeconds)
        let output = CollectedOutput()
        let remote = try RemoteCommand(
            command, on: session, inOwnProcessGroup: true, input: DataInput(stdin), output: output,
            deadline: deadline.earlier(Deadline(secondsFromNow: Self.startSeconds)))
        defer { remote.close() }
        let ending = try remote.run(deadline: deadline, stop: { output.overflow != nil })
        return try captured(remote, output: output, ending: ending, command: command)
    }

    /// What a short command brought back, once it ended: its output and exit, or, when it ran out of time (or was
    /// stopped), its process group killed and what it printed until then.
    ///
    /// - Throws: `RemoteError` `.refusedContent` when it printed past its output's limit (it is stopped).
    func captured(_ remote: RemoteCommand, output: CollectedOutput, ending: RemoteCommand.Ending, command: String)
        throws -> CapturedOutput
    {
        if let stream = output.overflow {
            try? stop(remote)
            let limit = stream == "stdout" ? output.stdoutLimit : output.stderrLimit
            throw RemoteError(
                .refusedContent, host: name,
                "printed more than \(limit) bytes on \(stream) for a command Pipe ran for itself (the limit for such "
                    + "commands), so it was stopped: \(DisplayEscaping.escaped(String(command.prefix(200))))")
        }
        guard case .exited(let exit) = ending else {
            try stop(remote)
            return CapturedOutput(stdout: output.stdoutData, stderr: output.stderrData, exit: .timedOut)
        }
        try requireAnnouncement(remote, exit: exit, stderr: output.stderrData)
        return CapturedOutput(stdout: output.stdoutData, stderr: output.stderrData, exit: exit)
    }

    /// Runs a long command in its own process group, streaming its output to the callbacks as it arrives.
    ///
    /// `onStarted` gets the group's id as soon as the host announces it (before the command's own output). The
    /// cancellation token and the deadline are checked at least every 100 ms; either kills the group (SIGTERM, then
    /// SIGKILL after `terminationGraceSeconds`) over a second channel, waits until none of it is left, and returns
    /// `.cancelled` / `.timedOut` (`.cancelled` at once, with nothing started, when the token is already cancelled).
    /// A connection that drops while the command runs returns `.lost` (the group may still run: kill it with
    /// `terminate(_:graceSeconds:)` after reconnecting); one that is already gone throws `.connectionLost`. A signal
    /// ending the command shows as `.signaled`.
    public func runStoppable(
        _ command: String, stdin: Data?, timeoutSeconds: Double?, cancellation: CancellationToken,
        onStarted: (RemoteProcessGroup) -> Void, onStdout: (Data) -> Void, onStderr: (Data) -> Void
    ) throws -> RemoteExit {
        try withoutActuallyEscaping(onStdout) { onStdout in
            try withoutActuallyEscaping(onStderr) { onStderr in
                if cancellation.isCancelled { return .cancelled }
                let deadline = Deadline(secondsFromNow: timeoutSeconds)
                let output = CallbackOutput(onStdout: onStdout, onStderr: onStderr)
                let remote = try RemoteCommand(
                    command, on: session, inOwnProcessGroup: true, input: DataInput(stdin), output: output,
                    deadline: deadline.earlier(Deadline(secondsFromNow: Self.startSeconds)))
                defer { remote.close() }
                do {
                    let ending = try remote.run(
                        deadline: deadline, stop: { cancellation.isCancelled },
                        onAnnounced: { onStarted(RemoteProcessGroup(id: $0)) })
                    switch ending {
                    case .exited(let exit):
                        try requireAnnouncement(remote, exit: exit, stderr: nil)
                        return exit
                    case .stopped:
                        try stop(remote)
                        return .cancelled
                    case .timedOut:
                        try stop(remote)
                        return .timedOut
                    }
                } catch let error as RemoteError where error.kind == .connectionLost {
                    return .lost(error.message)
                }
            }
        }
    }

    /// Stops a process group on the host: SIGTERM, up to `graceSeconds` (default `terminationGraceSeconds`) for it
    /// to end, then SIGKILL; returns once none of its processes is left. For a group recorded by `runStoppable`
    /// whose connection was lost.
    ///
    /// - Throws: `RemoteError` `.commandFailed` when a member survives SIGKILL.
    public func terminate(_ group: RemoteProcessGroup, graceSeconds: Double? = nil) throws {
        guard group.id > 1 else {
            throw RemoteError(.commandFailed, host: name, "refusing to signal process group \(group.id)")
        }
        let grace = graceSeconds ?? terminationGraceSeconds
        let tenths = Int((grace * 10).rounded(.up))
        let line = RemoteScript.commandLine(
            script: RemoteScript.killGroup, name: "pipe-kill", arguments: [String(group.id), String(tenths)])
        let output = CollectedOutput()
        let deadline = Deadline(secondsFromNow: grace + 15)
        let killer = try RemoteCommand(
            line, on: session, inOwnProcessGroup: false, input: DataInput(nil), output: output, deadline: deadline)
        defer { killer.close() }
        let ending = try killer.run(deadline: deadline)
        guard ending == .exited(.exited(0)) else {
            let detail = String(decoding: output.stderrData, as: UTF8.self).trimmingCharacters(
                in: .whitespacesAndNewlines)
            throw RemoteError(
                .commandFailed, host: name,
                "could not stop process group \(group.id) on the host (\(ending)): \(detail.isEmpty ? "no detail" : detail)"
            )
        }
    }

    /// Kills a stopped command's process group and collects what it printed until it ended.
    func stop(_ remote: RemoteCommand) throws {
        remote.abandonInput()
        if remote.processGroup == nil {
            // The announcement is the wrapper's first output: it is normally a few milliseconds away.
            _ = try remote.run(
                deadline: Deadline(secondsFromNow: Self.settleSeconds), stop: { remote.processGroup != nil })
        }
        guard let group = remote.processGroup else {
            throw RemoteError(
                .commandFailed, host: name,
                "the command did not announce its process group within \(Int(Self.settleSeconds)) s, so Pipe could not "
                    + "stop it; it may still be running on the host")
        }
        try terminate(RemoteProcessGroup(id: group))
        _ = try remote.run(deadline: Deadline(secondsFromNow: Self.settleSeconds))
    }

    /// A command that ended without announcing its process group never ran: `RemoteScript.groupLeader` refused, or
    /// `/bin/sh` could not start.
    /// `stderr` is `nil` when it went to a callback already.
    func requireAnnouncement(_ remote: RemoteCommand, exit: RemoteExit, stderr: Data?) throws {
        guard remote.processGroup == nil else { return }
        guard let stderr else {
            throw RemoteError(
                .commandFailed, host: name, "the command did not start (\(exit.artifactText)); its stderr says why")
        }
        let detail = String(decoding: stderr, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
        throw RemoteError(
            .commandFailed, host: name,
            "the command did not start (\(exit.artifactText)): \(detail.isEmpty ? "no message from the host" : detail)")
    }
}
