import Foundation
import PipeCore
import PipeSSH

/// A connection `WarmSessionPool` lent to one run: an `SSHRemoteHost` over a session of the pool, new or reused.
///
/// A reused session is checked before it is lent, without a round trip (`SSHSession.reuseRefusal`), which finds
/// a host that closed the connection, but not one that went silent or that resets it only when spoken to. So until
/// a first command reaches the host over it, a reused session that fails as lost (or not answering) is replaced
/// by a new connection and the command runs there, once: nothing was started on the host (no channel opened), so
/// nothing runs twice. After that first command, a lost connection is the engine's to handle, as with any other.
final class PooledRemoteHost: RemoteHost {
    /// What the commands run over now.
    private(set) var remote: SSHRemoteHost
    /// When `remote`'s session was opened (the pool's clock).
    private(set) var openedAt: Double
    /// Opens a replacement for a reused session dead at its first command (how it failed); `nil` once a command
    /// was tried.
    private var replacement: ((RemoteError) throws -> (remote: SSHRemoteHost, openedAt: Double))?
    /// The session's channel count when lent: more since means a command reached the host.
    private let channelsWhenLent: Int

    init(
        _ remote: SSHRemoteHost, openedAt: Double,
        replacingIfDeadAtFirstCommand replacement: ((RemoteError) throws -> (remote: SSHRemoteHost, openedAt: Double))?
    ) {
        self.remote = remote
        self.openedAt = openedAt
        self.replacement = replacement
        channelsWhenLent = remote.session.channelsOpened
    }

    var name: String { remote.name }

    func capture(_ command: String, stdin: Data?, timeoutSeconds: Double) throws -> CapturedOutput {
        try firstCommandAware { try $0.capture(command, stdin: stdin, timeoutSeconds: timeoutSeconds) }
    }

    func runStoppable(
        _ command: String, stdin: Data?, timeoutSeconds: Double?, cancellation: CancellationToken,
        onStarted: (RemoteProcessGroup) -> Void, onStdout: (Data) -> Void, onStderr: (Data) -> Void
    ) throws -> RemoteExit {
        try firstCommandAware {
            try $0.runStoppable(
                command, stdin: stdin, timeoutSeconds: timeoutSeconds, cancellation: cancellation,
                onStarted: onStarted, onStdout: onStdout, onStderr: onStderr)
        }
    }

    func upload(directory: URL, to remoteDirectory: String) throws -> TransferSummary {
        try firstCommandAware { try $0.upload(directory: directory, to: remoteDirectory) }
    }

    func syncWorkspace(directory: URL, cacheKey: String, to remoteDirectory: String) throws -> TransferSummary {
        try firstCommandAware { try $0.syncWorkspace(directory: directory, cacheKey: cacheKey, to: remoteDirectory) }
    }

    func download(_ remotePath: String, into localParent: URL, cancellation: CancellationToken) throws
        -> TransferSummary
    {
        try firstCommandAware { try $0.download(remotePath, into: localParent, cancellation: cancellation) }
    }

    /// Never the first command of a run's connection (it reports failures in its result, not by throwing).
    func pullBack(
        _ remotePath: String, into localParent: URL, cancellation: CancellationToken, alongside command: String?,
        commandTimeoutSeconds: Double, limitBytes: Int64
    ) -> PullBackResult {
        replacement = nil
        return remote.pullBack(
            remotePath, into: localParent, cancellation: cancellation, alongside: command,
            commandTimeoutSeconds: commandTimeoutSeconds, limitBytes: limitBytes)
    }

    /// The first command of a run's connection (the run's set-up): it reports failures in its result, so a reused
    /// session dead before any channel opened is recognized there, and everything runs again over a new connection.
    func captureTogether(_ commands: [String], timeoutSeconds: Double, syncing sync: WorkspaceSyncRequest?)
        -> CapturedTogether
    {
        let together = remote.captureTogether(commands, timeoutSeconds: timeoutSeconds, syncing: sync)
        guard let replacement else { return together }
        self.replacement = nil
        let failures = together.outputs.compactMap { output -> RemoteError? in
            guard case .failure(let error as RemoteError) = output else { return nil }
            return error
        }
        guard remote.session.channelsOpened == channelsWhenLent,
            let lost = failures.first(where: { [.connectionLost, .timeout].contains($0.kind) })
        else { return together }
        do {
            (remote, openedAt) = try replacement(lost)
        } catch {
            return CapturedTogether(
                outputs: commands.map { _ in .failure(error) }, sync: sync.map { _ in .failure(error) })
        }
        return remote.captureTogether(commands, timeoutSeconds: timeoutSeconds, syncing: sync)
    }

    /// Runs `body` over `remote`; the first time only, a failure before any channel opened on a reused session
    /// runs it again over a new connection.
    private func firstCommandAware<Result>(_ body: (SSHRemoteHost) throws -> Result) throws -> Result {
        guard let replacement else { return try body(remote) }
        self.replacement = nil
        do {
            return try body(remote)
        } catch let error as RemoteError
            where [.connectionLost, .timeout].contains(error.kind)
            && remote.session.channelsOpened == channelsWhenLent
        {
            (remote, openedAt) = try replacement(error)
            return try body(remote)
        }
    }
}
