import Foundation
import PipeBasics

/// A connected Mac host: what the engine and plugins may do there.
///
/// Implemented over SSH by `PipeSSH`; the core and plugins never see SSH. One `RemoteHost` belongs to one thread
/// at a time (an SSH session is not shared between threads).
public protocol RemoteHost: AnyObject {
    /// The host's configuration name, for messages.
    var name: String { get }

    /// Runs a short command and collects its output (listings, versions, `mkdir`, `rm`).
    func capture(_ command: String, stdin: Data?, timeoutSeconds: Double) throws -> CapturedOutput

    /// Runs a long command in its own process group on the host, streaming stdout and stderr as they arrive.
    ///
    /// On timeout or cancellation the whole remote process group is killed over a second channel before this
    /// returns, so nothing is left running on the host.
    func runStoppable(
        _ command: String, stdin: Data?, timeoutSeconds: Double?, cancellation: CancellationToken,
        onStarted: (RemoteProcessGroup) -> Void, onStdout: (Data) -> Void, onStderr: (Data) -> Void
    ) throws -> RemoteExit

    /// Uploads a local folder's contents into `remoteDirectory` (created) as one tar stream, verified by digest.
    func upload(directory: URL, to remoteDirectory: String) throws -> TransferSummary

    /// Brings `remoteDirectory` (created fresh) to the contents of the local `directory`, reusing what a cache on the
    /// host (named by `cacheKey`, e.g. the repository) already holds: implementations may send only what changed
    /// and clone the cache into `remoteDirectory`. The run folder never shares files with the cache or another run.
    /// An empty `remoteDirectory` makes the cache's own tree match `directory` exactly and clones nothing: a build
    /// cache, whose tree the run uses in place (`BuildCachePlace.tree`), under a lease only one run holds.
    func syncWorkspace(directory: URL, cacheKey: String, to remoteDirectory: String) throws -> TransferSummary

    /// Downloads a remote file or folder as a tar stream into `localParent`, verified by digest; the item appears
    /// under its own name only once complete (written under a temporary name, then renamed).
    func download(_ remotePath: String, into localParent: URL, cancellation: CancellationToken) throws
        -> TransferSummary

    /// `download`s `remotePath` while running `command` (a short one, as with `capture`) on the host at the same
    /// time — a result bundle streaming back while its summary is read — so the two cost one wait, not two.
    /// An item whose files hold more than `limitBytes` is refused (`RemoteError.Kind.refusedContent`).
    /// Never throws: each part reports its own failure.
    func pullBack(
        _ remotePath: String, into localParent: URL, cancellation: CancellationToken, alongside command: String?,
        commandTimeoutSeconds: Double, limitBytes: Int64
    ) -> PullBackResult

    /// Runs short `commands` (as `capture` runs them) and, when given, the workspace `sync` at the same time over
    /// one connection: a run's set-up (Xcode's version, the simulator list, the run folder, the workspace) costs one
    /// wait instead of one per step. Never throws: each part reports its own failure, in the order given.
    func captureTogether(_ commands: [String], timeoutSeconds: Double, syncing sync: WorkspaceSyncRequest?)
        -> CapturedTogether
}

/// A workspace sync asked for beside other commands (`RemoteHost.captureTogether`): `syncWorkspace`'s arguments.
public struct WorkspaceSyncRequest: Sendable, Equatable {
    public var directory: URL
    public var cacheKey: String
    /// The folder to make, absolute or relative to the login's home; its parent is created when missing. Empty:
    /// the cache's tree itself is the workspace (`syncWorkspace`).
    public var remoteDirectory: String

    public init(directory: URL, cacheKey: String, remoteDirectory: String) {
        self.directory = directory
        self.cacheKey = cacheKey
        self.remoteDirectory = remoteDirectory
    }
}

/// What `RemoteHost.captureTogether` brings back: each command's output, and the sync's summary when one was asked.
public struct CapturedTogether {
    public var outputs: [Result<CapturedOutput, Error>]
    public var sync: Result<TransferSummary, Error>?

    public init(outputs: [Result<CapturedOutput, Error>], sync: Result<TransferSummary, Error>?) {
        self.outputs = outputs
        self.sync = sync
    }
}

extension RemoteHost {
    /// Without a cache: the whole folder, as one verified tar stream.
    public func syncWorkspace(directory: URL, cacheKey: String, to remoteDirectory: String) throws -> TransferSummary {
        try upload(directory: directory, to: remoteDirectory)
    }

    public func capture(_ command: String, timeoutSeconds: Double = 60) throws -> CapturedOutput {
        try capture(command, stdin: nil, timeoutSeconds: timeoutSeconds)
    }

    /// One after the other: the commands, then the sync.
    public func captureTogether(_ commands: [String], timeoutSeconds: Double, syncing sync: WorkspaceSyncRequest?)
        -> CapturedTogether
    {
        CapturedTogether(
            outputs: commands.map { command in
                Result { try capture(command, stdin: nil, timeoutSeconds: timeoutSeconds) }
            },
            sync: sync.map { sync in
                Result {
                    try syncWorkspace(directory: sync.directory, cacheKey: sync.cacheKey, to: sync.remoteDirectory)
                }
            })
    }

    /// `pullBack` within the default artifact limit.
    public func pullBack(
        _ remotePath: String, into localParent: URL, cancellation: CancellationToken, alongside command: String?,
        commandTimeoutSeconds: Double
    ) -> PullBackResult {
        pullBack(
            remotePath, into: localParent, cancellation: cancellation, alongside: command,
            commandTimeoutSeconds: commandTimeoutSeconds, limitBytes: LayerSpec.defaultArtifactLimitBytes)
    }

    /// One after the other: a check that the item exists, the download, then the command (no limit of its own).
    public func pullBack(
        _ remotePath: String, into localParent: URL, cancellation: CancellationToken, alongside command: String?,
        commandTimeoutSeconds: Double, limitBytes: Int64
    ) -> PullBackResult {
        let quoted = ShellQuote.quote(remotePath)
        let exists = Result { try capture("test -e \(quoted) || test -L \(quoted)", timeoutSeconds: 30) }
        var result: PullBackResult
        switch exists {
        case .success(let output) where output.exit == .exited(0):
            result = PullBackResult(
                transfer: Result { try download(remotePath, into: localParent, cancellation: cancellation) },
                missing: false, command: nil)
        case .success:
            let error = RemoteError(.commandFailed, host: name, "\(remotePath) does not exist on the host")
            result = PullBackResult(transfer: .failure(error), missing: true, command: nil)
        case .failure(let error):
            // The check itself failed (a lost connection): that says nothing of whether a bundle was written.
            result = PullBackResult(transfer: .failure(error), missing: false, command: nil)
        }
        if let command {
            result.command = Result { try capture(command, stdin: nil, timeoutSeconds: commandTimeoutSeconds) }
        }
        return result
    }
}

/// Output of a short remote command.
public struct CapturedOutput: Sendable {
    public var stdout: Data
    public var stderr: Data
    public var exit: RemoteExit

    public init(stdout: Data, stderr: Data, exit: RemoteExit) {
        self.stdout = stdout
        self.stderr = stderr
        self.exit = exit
    }

    public var stdoutText: String { String(decoding: stdout, as: UTF8.self) }
    public var stderrText: String { String(decoding: stderr, as: UTF8.self) }
}

/// The process group a stoppable command runs in on the host, recorded so it can be killed later.
public struct RemoteProcessGroup: Sendable, Equatable, Codable {
    public var id: Int32
    public init(id: Int32) { self.id = id }
}

/// How a remote command ended.
public enum RemoteExit: Sendable, Equatable {
    /// The command exited with this status.
    case exited(Int32)
    /// The command was ended by a signal (its name, e.g. `KILL`).
    case signaled(String)
    /// The time limit ran out; the process group was killed.
    case timedOut
    /// The user (or a controller) cancelled; the process group was killed.
    case cancelled
    /// The connection was lost before an exit status arrived.
    case lost(String)

    /// What the `exit-code` artifact file holds: the number, or the signal, or `lost`.
    public var artifactText: String {
        switch self {
        case .exited(let code): return "\(code)"
        case .signaled(let signal): return "signal \(signal)"
        case .timedOut: return "timed-out"
        case .cancelled: return "cancelled"
        case .lost: return "lost"
        }
    }

    public var exitCode: Int32? {
        if case .exited(let code) = self { return code }
        return nil
    }
}

/// What a transfer moved, with the digest both ends agreed on.
public struct TransferSummary: Sendable, Equatable {
    public var bytes: Int64
    /// The SHA-256 of the stream; for a transfer split into several streams, of their digests (hex, one a line, in
    /// order). Empty for a workspace sync, whose archive is not digested (SSH's MAC vouches for it, and its manifest
    /// carries each file's SHA-256).
    public var sha256: String
    public var seconds: Double
    /// Where the item now is (local path for downloads, remote path for uploads).
    public var destination: String
    /// How many streams carried it, and over how many sessions at once (a big download is split across two).
    public var streams: Int
    public var sessions: Int

    public init(
        bytes: Int64, sha256: String, seconds: Double, destination: String, streams: Int = 1, sessions: Int = 1
    ) {
        self.bytes = bytes
        self.sha256 = sha256
        self.seconds = seconds
        self.destination = destination
        self.streams = streams
        self.sessions = sessions
    }
}

/// Errors of the remote side, each mapped to the `infrastructure` outcome unless said otherwise.
public struct RemoteError: Error, CustomStringConvertible, Sendable {
    public enum Kind: String, Sendable {
        case unreachable
        case hostKeyUnknown
        case hostKeyChanged
        case authentication
        case connectionLost
        case timeout
        case transferCorrupt
        case commandFailed
        case diskFull
        /// The host sent what Pipe never keeps (a hostile archive member, output past a limit): the host's fault,
        /// and no retry goes back to it.
        case refusedContent
    }

    public var kind: Kind
    public var host: String
    public var message: String

    public init(_ kind: Kind, host: String, _ message: String) {
        self.kind = kind
        self.host = host
        self.message = message
    }

    public var description: String { "host \(host): \(message)" }
}
