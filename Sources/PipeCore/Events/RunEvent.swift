import Foundation

/// Everything a run reports as it goes; renderers (terminal, plain CI log, JSON lines) only consume these.
public enum RunEvent: Sendable {
    case runStarted(runID: String, pipeline: String, requestedBy: String)
    case checkedOut(ref: String, commit: String, workspace: String)
    case hostConnected(host: String, endpoint: String, keyType: String, fingerprint: String)
    case workspaceUploaded(host: String, bytes: Int64, seconds: Double)
    case simulatorsListed(host: String, available: Int)
    case simulatorChosen(host: String, choice: SimulatorChoice)
    case layerStarted(layer: String, attempt: Int)
    /// The main command a plugin runs on the host for a layer, as the remote shell receives it.
    case remoteCommand(layer: String, command: String)
    /// A stoppable remote command started in its own process group on the host: recorded (in the store's events)
    /// so the group can be killed even if this coordinator dies.
    case remoteProcessStarted(layer: String, host: String, processGroup: Int32)
    case testFinished(layer: String, result: TestCaseResult)
    /// A raw chunk of the layer's log (stdout or stderr), already free of secrets.
    case output(layer: String, stream: OutputStream, text: String)
    case layerFinished(layer: String, attempt: Int, result: LayerResultSummary)
    case artifactsPulled(layer: String, paths: [String])
    case warning(String)
    /// A decision worth showing that is not a problem (which host of a pool was chosen, and why).
    case note(String)
    case runFinished(summary: RunFinishedSummary)

    public enum OutputStream: String, Sendable {
        case stdout
        case stderr
    }
}

/// The part of a layer's result a renderer shows.
public struct LayerResultSummary: Sendable {
    public var outcome: LayerOutcome
    public var evidence: [String]
    public var exitText: String?
    public var passedTests: Int
    public var failedTests: Int
    public var seconds: Double

    public init(
        outcome: LayerOutcome, evidence: [String], exitText: String?, passedTests: Int, failedTests: Int,
        seconds: Double
    ) {
        self.outcome = outcome
        self.evidence = evidence
        self.exitText = exitText
        self.passedTests = passedTests
        self.failedTests = failedTests
        self.seconds = seconds
    }
}

/// The end of a run, as a renderer shows it.
public struct RunFinishedSummary: Sendable {
    public var runID: String
    public var status: RunStatus
    public var exitCode: PipeExitCode
    public var layers: [(name: String, outcome: LayerOutcome?, artifacts: [String])]
    public var pendingSignoffs: [String]
    public var summaryPath: String
    public var seconds: Double
    /// Why the run ended before its layers ran, when it did.
    public var problem: String?
    /// Reports written for the run (JUnit, Markdown), relative to the project folder.
    public var reportPaths: [String]

    public init(
        runID: String, status: RunStatus, exitCode: PipeExitCode,
        layers: [(name: String, outcome: LayerOutcome?, artifacts: [String])], pendingSignoffs: [String],
        summaryPath: String, seconds: Double, problem: String? = nil, reportPaths: [String] = []
    ) {
        self.runID = runID
        self.status = status
        self.exitCode = exitCode
        self.layers = layers
        self.pendingSignoffs = pendingSignoffs
        self.summaryPath = summaryPath
        self.seconds = seconds
        self.problem = problem
        self.reportPaths = reportPaths
    }
}

/// Receives a run's events. Called from the run's thread; implementations must be quick.
public protocol EventSink: AnyObject {
    func emit(_ event: RunEvent)
}

/// Forwards every event to several sinks (renderer, log file, later the store).
public final class EventFanOut: EventSink {
    private var sinks: [EventSink]
    public init(_ sinks: [EventSink]) { self.sinks = sinks }
    public func emit(_ event: RunEvent) {
        for sink in sinks { sink.emit(event) }
    }
}

/// Collects events in memory (tests).
public final class EventRecorder: EventSink {
    public private(set) var events: [RunEvent] = []
    public init() {}
    public func emit(_ event: RunEvent) { events.append(event) }
}
