import Foundation

/// Checks a repository out at a ref into a fresh folder (libgit2 in `PipeGit`).
public protocol SourceCheckout {
    /// Checks out `repository` and says which of `trustedRefs` (if any) the commit is reachable from.
    func checkout(
        _ repository: RepositorySpec, projectDirectory: URL, into folder: URL, trustedRefs: [TrustedRefPattern]
    ) throws -> CheckedOutSource
}

/// A finished checkout.
public struct CheckedOutSource: Sendable, Equatable {
    /// The full commit SHA the run verifies.
    public var commit: String
    /// The ref as resolved (e.g. `refs/heads/main`).
    public var resolvedRef: String
    /// The checked-out work tree.
    public var workTree: URL
    /// The first protected ref the commit is reachable from (`refs/heads/main`), `nil` when none is.
    public var protectedRef: String?

    public init(commit: String, resolvedRef: String, workTree: URL, protectedRef: String? = nil) {
        self.commit = commit
        self.resolvedRef = resolvedRef
        self.workTree = workTree
        self.protectedRef = protectedRef
    }
}

/// Opens a verified, authenticated connection to a host (libssh2 in `PipeSSH`).
public protocol HostConnector {
    func connect(_ host: HostConfig, cancellation: CancellationToken) throws -> ConnectedHost

    /// The run is over with `remote`, a connection `connect` returned for `host` (without the engine's wrappers),
    /// after the run's clean-up: no layer lost it and no command runs on it. A connector that keeps sessions warm
    /// for later runs (the controller's) may hand it to one; by default it is dropped, and closes when released.
    func giveBack(_ remote: RemoteHost, host: HostConfig)
}

extension HostConnector {
    public func giveBack(_ remote: RemoteHost, host: HostConfig) {}
}

/// A host after its key was checked and the login accepted.
public struct ConnectedHost {
    public var remote: RemoteHost
    /// e.g. `ED25519`.
    public var keyType: String
    /// `SHA256:…` as OpenSSH prints it.
    public var fingerprint: String

    public init(remote: RemoteHost, keyType: String, fingerprint: String) {
        self.remote = remote
        self.keyType = keyType
        self.fingerprint = fingerprint
    }
}

/// Apple knowledge the engine needs about a host (`PipeApple` over a `RemoteHost`).
///
/// The commands that list a host's simulators and read its Xcode are given apart from how their output is read, so
/// the engine can run them at the same time as the workspace upload (`RemoteHost.captureTogether`).
public protocol HostInspector {
    /// The command that lists the simulators a host offers (`xcrun simctl list devices available -j`).
    var simulatorListCommand: String { get }
    /// The simulators in `output` of `simulatorListCommand` on `host`; throws a `ConfigurationError` when the
    /// command failed or its output cannot be read.
    func readSimulators(_ output: CapturedOutput, host: String) throws -> [Simulator]
    /// The command that says which Xcode a host runs (`xcodebuild -version`).
    var xcodeVersionCommand: String { get }
    /// The Xcode in `output` of `xcodeVersionCommand`, e.g. `Xcode 16.2 (16C5032a)`.
    func readXcodeVersion(_ output: CapturedOutput) throws -> String
    /// Chooses one simulator deterministically, never one in `excluding`; throws a `ConfigurationError` listing
    /// what the host has. `udidSource` names where `criteria.udid` came from (`--udid`, `SIM_UDID`), for messages.
    func choose(
        _ criteria: SimulatorCriteria, among simulators: [Simulator], excluding: Set<String>, udidSource: String
    ) throws -> SimulatorChoice
    /// Creates a simulator of `criteria`'s device type and runtime (`simctl create`) and returns its UDID; throws a
    /// `ConfigurationError` when the host has no such device type or runtime.
    func createSimulator(_ criteria: SimulatorCriteria, on host: RemoteHost) throws -> String
    /// Deletes a simulator Pipe created (`simctl delete`); one already gone is not an error.
    func deleteSimulator(udid: String, on host: RemoteHost) throws
}

extension HostInspector {
    /// The simulators the host offers.
    public func simulators(on host: RemoteHost) throws -> [Simulator] {
        try readSimulators(try host.capture(simulatorListCommand, timeoutSeconds: 120), host: host.name)
    }

    /// The host's Xcode, e.g. `Xcode 16.2 (16C5032a)`.
    public func xcodeVersion(on host: RemoteHost) throws -> String {
        try readXcodeVersion(try host.capture(xcodeVersionCommand, timeoutSeconds: 60))
    }
}

/// A failure of the request against this host's setup (no such simulator, scheme not shared): `host-config`.
public struct ConfigurationError: Error, CustomStringConvertible, Sendable {
    public var message: String
    public init(_ message: String) { self.message = message }
    public var description: String { message }
}

/// The plugins the engine may run, by kind.
public struct PluginRegistry {
    public private(set) var plugins: [String: LayerPlugin.Type] = [:]

    public init(_ plugins: [LayerPlugin.Type]) {
        for plugin in plugins { self.plugins[plugin.kind] = plugin }
    }

    public func plugin(kind: String) -> LayerPlugin.Type? { plugins[kind] }

    /// Registers `plugin` under `kind`: one adapter type serves every external plugin kind, reading the kind from
    /// the layer it runs.
    public mutating func register(_ plugin: LayerPlugin.Type, as kind: String) { plugins[kind] = plugin }

    public var kinds: [String] { plugins.keys.sorted() }
}

/// Writes a run's reports (JUnit, Markdown, …) into its artifacts folder when it ends (`PipeReport`).
public protocol RunReportWriter {
    /// Returns the files written. `earlierAttempts` holds, per layer, the tests of attempts before the last (the
    /// record keeps only the last), so a test that failed and then passed reads as flaky.
    func write(
        record: RunRecord, earlierAttempts: [String: [TestCaseResult]], into folder: URL, redactor: SecretRedactor
    ) throws -> [URL]
}
