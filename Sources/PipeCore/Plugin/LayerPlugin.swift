import Foundation

/// Runs one kind of verification layer (`xcodebuild-test`, `checklist`, `shell`, …).
///
/// A plugin gets everything it needs in a `LayerContext` and returns a `LayerResult`; it knows nothing about
/// who triggered the run, how events are shown, or other plugins.
///
/// Layers of one run may run at the same time: each `run` is called on a thread of its own, with a `host`
/// connection and a `simulator` no other running layer uses, and may emit `events` freely. What they share is the
/// run's folder and workspace on the host: a plugin writes only to fresh paths of its own there (a result bundle
/// named after the layer and attempt), and shares work through `sharedWork`.
public protocol LayerPlugin {
    /// The kind a pipeline names in `plugin:`.
    static var kind: String { get }
    /// The settings this kind accepts under a layer, checked when the pipeline is loaded.
    static var settings: [SettingSchema] { get }
    /// The gate a layer of this kind belongs to when the pipeline does not say.
    static var defaultGate: Gate { get }
    /// Whether the layer needs a simulator chosen on the host.
    static var needsSimulator: Bool { get }
    /// Whether the layer builds, and so may build in a build cache of the host (`BuildCachePlace`): a run with such
    /// a layer (and `build-cache:` not false) leases one and uses its tree as the workspace.
    static var buildsInCache: Bool { get }
    /// Whether the layer can take secrets of `type: file` (`SecretValues.files`): one that cannot never sees them,
    /// so validation refuses a layer that names one.
    static var takesFileSecrets: Bool { get }

    init()

    func run(_ context: LayerContext) throws -> LayerResult
}

extension LayerPlugin {
    public static var buildsInCache: Bool { false }
    public static var takesFileSecrets: Bool { false }
}

/// One setting a plugin accepts, for validation and documentation.
public struct SettingSchema: Sendable, Equatable {
    public enum ValueType: String, Sendable {
        case string
        case integer
        case boolean
        case strings = "list of strings"
        case map = "mapping of strings"
        /// A mapping of the named `fields` only, each of its own type; decoded as `.map` of canonical text
        /// (`SettingField.Kind`).
        case record = "mapping of fields"
    }

    public var key: String
    public var type: ValueType
    public var required: Bool
    /// Text a shell on the host parses as a command: each `${name}` in it becomes a double-quoted reference to an
    /// environment variable (`"$PIPE_PARAM_name"`, `LayerSpec.shellParameters`), never the value itself.
    public var isShellCommand: Bool
    public var summary: String
    /// The fields of a `.record` setting.
    public var fields: [SettingField]
    /// What the plugin refuses beyond the type, checked when the pipeline is loaded (at the value's position)
    /// and again by the plugin before it runs.
    public var check: SettingCheck?

    public init(
        _ key: String, _ type: ValueType, required: Bool = false, shellCommand: Bool = false,
        fields: [SettingField] = [], check: SettingCheck? = nil, _ summary: String
    ) {
        self.key = key
        self.type = type
        self.required = required
        self.isShellCommand = shellCommand
        self.fields = fields
        self.check = check
        self.summary = summary
    }
}

/// What a plugin may use while it runs one attempt of one layer.
public struct LayerContext {
    public var runID: String
    public var pipelineName: String
    public var layer: LayerSpec
    /// 1 for the first attempt.
    public var attempt: Int
    public var host: RemoteHost
    public var hostName: String
    /// The simulator chosen for this layer, when the plugin needs one.
    public var simulator: Simulator?
    /// The run's folder on the host (`<work dir>/runs/<run id>`).
    public var remoteRunFolder: String
    /// The uploaded workspace on the host.
    public var remoteWorkspace: String
    /// `artifacts/<run id>/<layer>/` on the coordinator (created).
    public var localArtifacts: URL
    /// The project folder: artifact paths in the run record are relative to it.
    public var projectDirectory: URL
    /// When the run started (for fresh result-bundle names).
    public var runStartTime: Date
    public var events: EventSink
    public var cancellation: CancellationToken
    /// The secrets this layer receives: deliver them with `SecretDelivery`, never on a command line.
    public var secrets: SecretValues
    /// Masks every secret of the run; apply it to anything written to the artifacts.
    public var redactor: SecretRedactor
    /// Work done once per run and shared by its layers (one build for the layers that test the same scheme).
    public var sharedWork: RunSharedWork
    /// The layers this run runs (the pipeline's, less those `--only` leaves out and those carried over from an
    /// earlier run), so a plugin can share work with its siblings; empty when unknown (the layer runs alone).
    public var runLayers: [LayerSpec]
    /// `artifacts/<run id>/` on the coordinator, for what belongs to the run rather than to one layer (a shared
    /// build's log); `nil` when unknown (then a plugin keeps such files in `localArtifacts`).
    public var runArtifacts: URL?
    /// The build cache the run leased on the host, whose tree is `remoteWorkspace`; `nil` when the run has none
    /// (the host keeps none, or no layer of the run builds in one): then builds go to fresh folders of the run.
    public var buildCache: BuildCachePlace?
    /// How many more times a failed test may run (the layer's `retry.tests`); a plugin whose tool retries failed
    /// tests itself (Xcode 13's `-retry-tests-on-failure`) does so and says `LayerResult.toolRetriedTestsFact`.
    public var testRetries: Int = 0
    /// The host's Xcode as the run found it (`Xcode 16.2 (16C5032a)`), when it has one.
    public var hostXcode: String?
    /// The tests that failed in the previous attempt, when this attempt is a test retry (`retry.tests` where the
    /// tool cannot retry itself): a plugin runs only these again where it can, and the engine merges the results
    /// per test; empty for a first attempt or any other retry (then the plugin runs every test).
    public var testsToRetry: [TestCaseResult] = []

    /// `url` relative to the project folder, the way artifact paths are recorded and shown.
    public func projectRelativePath(_ url: URL) -> String { relativePath(url, to: projectDirectory) }

    public init(
        runID: String, pipelineName: String, layer: LayerSpec, attempt: Int, host: RemoteHost, hostName: String,
        simulator: Simulator?, remoteRunFolder: String, remoteWorkspace: String, localArtifacts: URL,
        projectDirectory: URL, runStartTime: Date, events: EventSink, cancellation: CancellationToken,
        secrets: SecretValues = SecretValues(), redactor: SecretRedactor = SecretRedactor(SecretValues()),
        sharedWork: RunSharedWork = RunSharedWork(), runLayers: [LayerSpec] = [], runArtifacts: URL? = nil,
        buildCache: BuildCachePlace? = nil
    ) {
        self.runID = runID
        self.pipelineName = pipelineName
        self.layer = layer
        self.attempt = attempt
        self.host = host
        self.hostName = hostName
        self.simulator = simulator
        self.remoteRunFolder = remoteRunFolder
        self.remoteWorkspace = remoteWorkspace
        self.localArtifacts = localArtifacts
        self.projectDirectory = projectDirectory
        self.runStartTime = runStartTime
        self.events = events
        self.cancellation = cancellation
        self.secrets = secrets
        self.redactor = redactor
        self.sharedWork = sharedWork
        self.runLayers = runLayers
        self.runArtifacts = runArtifacts
        self.buildCache = buildCache
    }
}

/// What one attempt of a layer produced.
public struct LayerResult: Sendable {
    public var outcome: LayerOutcome
    /// The lines or fields that decided the outcome, quoted so a person can check the verdict.
    public var evidence: [String]
    /// The exit status of the layer's main command, when it had one.
    public var exit: RemoteExit?
    public var tests: [TestCaseResult]
    public var artifacts: [ArtifactRecord]
    /// Facts for the run record (Xcode version, result bundle path, process group, …).
    public var facts: [String: String]
    /// Failed runs of tests before their last run in this attempt (a tool's own retries), for reports: with
    /// `tests`, they make a test that passed in the end flaky.
    public var earlierRuns: [TestCaseResult] = []
    /// The host sent what Pipe refuses (a hostile archive member, output past a limit): the layer is an
    /// infrastructure failure of that host, and no retry goes back to it.
    public var hostSentRefusedContent = false
    /// What a release layer built (its files, app, signing): the engine records it with the run's id, layer and
    /// commit, and writes `verification.json` beside it.
    public var releaseBuild: ReleaseBuild?

    /// The fact that names the remote process group of the layer's main command (`RemoteProcessGroup.id`): the
    /// engine kills what is left of it when a lost connection forces a new one.
    public static let processGroupFact = "remoteProcessGroup"

    /// The fact that names how the test runner failed before any test ran (a `TestRunnerFailure` text): the engine
    /// calls the same failure on two simulators the app's, since an app that crashes at launch looks the same.
    public static let testRunnerFailureFact = "testRunnerFailure"

    /// The fact that says the plugin's tool ran failed tests again itself, up to this many times: the engine does
    /// not run the layer again for its test failures (they failed every time).
    public static let toolRetriedTestsFact = "toolRetriedTests"

    /// The fact the engine adds to an attempt that was a test retry: how many failed tests it handed the plugin to
    /// run again. That attempt's tests are merged into the layer's (`TestRetryMerge`) rather than replacing them.
    public static let testsRetriedFact = "testsRetried"

    public init(
        outcome: LayerOutcome, evidence: [String] = [], exit: RemoteExit? = nil, tests: [TestCaseResult] = [],
        artifacts: [ArtifactRecord] = [], facts: [String: String] = [:]
    ) {
        self.outcome = outcome
        self.evidence = evidence
        self.exit = exit
        self.tests = tests
        self.artifacts = artifacts
        self.facts = facts
    }
}

/// One test case's result as read from the log or the bundle.
public struct TestCaseResult: Sendable, Equatable, Codable {
    public enum Status: String, Sendable, Codable {
        case passed
        case failed
        case skipped
        case expectedFailure = "expected-failure"
    }

    /// `Suite/test()` style identifier.
    public var identifier: String
    public var status: Status
    public var durationSeconds: Double?
    public var failureMessage: String?
    /// `File.swift:42`, when known.
    public var failureLocation: String?
    /// The test target (module) the test belongs to (`ReaderTests`), when the log or the bundle names it: a retry of
    /// only this test needs it (`-only-testing:ReaderTests/Suite/test`).
    public var target: String?

    public init(
        identifier: String, status: Status, durationSeconds: Double? = nil, failureMessage: String? = nil,
        failureLocation: String? = nil, target: String? = nil
    ) {
        self.identifier = identifier
        self.status = status
        self.durationSeconds = durationSeconds
        self.failureMessage = failureMessage
        self.failureLocation = failureLocation
        self.target = target
    }

    /// `target/identifier` where the target is known: two targets may hold a suite of the same name.
    public var qualifiedIdentifier: String { target.map { "\($0)/\(identifier)" } ?? identifier }
}

/// A file or folder a layer left in the run's artifacts.
public struct ArtifactRecord: Sendable, Equatable, Codable {
    public enum Kind: String, Sendable, Codable {
        case exitCode = "exit-code"
        case log
        case resultBundle = "result-bundle"
        case summaryJSON = "summary-json"
        case checklist
        /// A file a test attached (a screenshot), exported from the bundle on the host; `attachment` says whose.
        case attachment
        /// `xccov view --report --json` of the bundle.
        case coverage
        case other
    }

    public var kind: Kind
    /// Path relative to the project folder.
    public var path: String
    public var bytes: Int64?
    public var sha256: String?
    /// For `.attachment`: the test it belongs to and what it holds.
    public var attachment: AttachmentFacts?

    public init(kind: Kind, path: String, bytes: Int64? = nil, sha256: String? = nil) {
        self.kind = kind
        self.path = path
        self.bytes = bytes
        self.sha256 = sha256
    }
}
