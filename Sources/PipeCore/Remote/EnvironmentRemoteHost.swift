import Foundation
import PipeBasics

/// A host whose every command runs with extra environment variables, e.g. `DEVELOPER_DIR` for the Xcode a
/// pipeline's labels select on a host with several.
///
/// The values are exported in front of each command, quoted with `ShellQuote`; transfers are untouched.
public final class EnvironmentRemoteHost: RemoteHost {
    /// The connection the commands run over.
    public let base: RemoteHost
    private let prefix: String

    public init(_ base: RemoteHost, environment: [String: String]) {
        self.base = base
        prefix = environment.sorted { $0.key < $1.key }.map { "export \($0.key)=\(ShellQuote.quote($0.value)) && " }
            .joined()
    }

    public var name: String { base.name }

    public func capture(_ command: String, stdin: Data?, timeoutSeconds: Double) throws -> CapturedOutput {
        try base.capture(prefix + command, stdin: stdin, timeoutSeconds: timeoutSeconds)
    }

    public func runStoppable(
        _ command: String, stdin: Data?, timeoutSeconds: Double?, cancellation: CancellationToken,
        onStarted: (RemoteProcessGroup) -> Void, onStdout: (Data) -> Void, onStderr: (Data) -> Void
    ) throws -> RemoteExit {
        try base.runStoppable(
            prefix + command, stdin: stdin, timeoutSeconds: timeoutSeconds, cancellation: cancellation,
            onStarted: onStarted, onStdout: onStdout, onStderr: onStderr)
    }

    public func upload(directory: URL, to remoteDirectory: String) throws -> TransferSummary {
        try base.upload(directory: directory, to: remoteDirectory)
    }

    public func syncWorkspace(directory: URL, cacheKey: String, to remoteDirectory: String) throws -> TransferSummary {
        try base.syncWorkspace(directory: directory, cacheKey: cacheKey, to: remoteDirectory)
    }

    public func download(_ remotePath: String, into localParent: URL, cancellation: CancellationToken) throws
        -> TransferSummary
    {
        try base.download(remotePath, into: localParent, cancellation: cancellation)
    }

    public func pullBack(
        _ remotePath: String, into localParent: URL, cancellation: CancellationToken, alongside command: String?,
        commandTimeoutSeconds: Double, limitBytes: Int64
    ) -> PullBackResult {
        base.pullBack(
            remotePath, into: localParent, cancellation: cancellation, alongside: command.map { prefix + $0 },
            commandTimeoutSeconds: commandTimeoutSeconds, limitBytes: limitBytes)
    }

    public func captureTogether(_ commands: [String], timeoutSeconds: Double, syncing sync: WorkspaceSyncRequest?)
        -> CapturedTogether
    {
        base.captureTogether(commands.map { prefix + $0 }, timeoutSeconds: timeoutSeconds, syncing: sync)
    }
}
