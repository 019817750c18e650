import Foundation
import PipeBasics

/// The run history every `pipe` process shares: runs, layers, attempts, test results, artifacts, sign-offs and
/// the log of events that were shown.
///
/// The engine and the `pipe runs …` commands talk only to this protocol, so a PostgreSQL backend can be added
/// without touching them. Every call is synchronous and durable when it returns (callers run on their own
/// threads, never on Swift's cooperative pool), and an implementation is safe to call from several threads.
/// Run ids are the engine's (`RunID`); layers are named as in the pipeline; attempts are numbered from 1.
///
/// Errors are the implementation's typed errors; each message says what happened and what to do next.
public protocol RunStore: AnyObject {
    // MARK: Writing a run

    /// Records a new run, with whatever its record already holds (layers, attempts, their artifacts and the
    /// layers' tests, which belong to each layer's last attempt). `owner` is the process that drives the run.
    func createRun(_ record: RunRecord, owner: RunOwner) throws

    /// Changes the run-level fields that `update` sets; the fields it leaves `nil` keep their value.
    func updateRun(_ runID: String, _ update: RunUpdate) throws

    /// Notes that a layer began (its first attempt does this too).
    func startLayer(runID: String, layer: String, at date: Date) throws

    /// Ends a layer with its outcome and the evidence for it.
    func finishLayer(runID: String, layer: String, outcome: LayerOutcome, evidence: [String], at date: Date) throws

    /// Records a new attempt of a layer (number, start time, simulator); its outcome is normally still `nil`.
    func startAttempt(_ attempt: RunRecord.AttemptRecord, runID: String, layer: String) throws

    /// Records how an attempt ended: outcome, evidence, exit, end time, duration, facts; its artifacts are
    /// recorded as by `recordArtifacts`.
    func finishAttempt(_ attempt: RunRecord.AttemptRecord, runID: String, layer: String) throws

    /// Records test results of an attempt; a result for an identifier already recorded in that attempt
    /// replaces it, so streamed results and the final list can both be written.
    func recordTestResults(_ results: [TestCaseResult], runID: String, layer: String, attempt: Int) throws

    /// Records artifacts (path, size, digest) of an attempt, or of the run when `layer` is `nil`; `attempt`
    /// `nil` means the layer's latest attempt. A path already recorded for the run is updated.
    func recordArtifacts(_ artifacts: [ArtifactRecord], runID: String, layer: String?, attempt: Int?) throws

    // MARK: Sign-offs and events (append-only)

    /// Appends a sign-off of a manual layer; earlier ones stay visible, the latest decides the layer's outcome.
    @discardableResult
    func appendSignoff(_ signoff: SignoffRequest) throws -> Signoff

    /// Every sign-off of a run, oldest first.
    func signoffs(runID: String) throws -> [Signoff]

    /// Appends events to a run's log, in order; returns their sequence numbers (increasing across the store).
    @discardableResult
    func appendEvents(_ events: [StoredEvent.Draft], runID: String) throws -> [Int64]

    /// A run's events with a sequence number above `sequence`, oldest first, at most `limit`; with `layer`,
    /// only that layer's events. `pipe runs logs --follow` polls this with the last sequence it showed.
    func events(runID: String, after sequence: Int64, layer: String?, limit: Int) throws -> [StoredEvent]

    // MARK: Reading

    /// Runs matching `filter`, newest first.
    func listRuns(_ filter: RunFilter) throws -> [RunSummary]

    /// One run in full, or `nil` when the store has no run with this id.
    func run(_ runID: String) throws -> StoredRun?

    /// The ids that start with `prefix`, in order (at most `limit`); used to resolve what a user typed.
    func runIDs(withPrefix prefix: String, limit: Int) throws -> [String]

    // MARK: Other processes

    /// Finds runs still `running` whose owner process is dead (`isOwnerAlive` answers `.dead`) and marks
    /// them `interrupted`: layers and attempts that had not ended end `cancelled` with the interruption as
    /// evidence, and their artifacts stay recorded. Returns what it marked, with the remote run folders that
    /// the hosts must clean up.
    func markInterruptedRuns(at date: Date, isOwnerAlive: (RunOwner) -> RunOwner.Liveness) throws
        -> [InterruptedRun]

    /// Asks the process that drives a run to cancel it; that process polls `cancellationRequest(runID:)`.
    func requestCancellation(runID: String, reason: String, requestedBy: String, at date: Date) throws
        -> CancellationOutcome

    /// The cancellation asked for this run, if any.
    func cancellationRequest(runID: String) throws -> CancellationRequest?

    /// Ended runs whose remote run folder was recorded and not reported removed with `markRemoteFolderCleaned`:
    /// the engine reports each folder it removes, so what stays here is what the hosts' clean-up must remove
    /// (interrupted runs, and runs whose own clean-up failed).
    func pendingRemoteCleanups() throws -> [RemoteCleanup]

    /// Notes that a run's remote folder has been removed from its host.
    func markRemoteFolderCleaned(runID: String, at date: Date) throws

    // MARK: Housekeeping and history

    /// Removes old runs with all their records, never a run in progress; returns what was removed, with the
    /// artifact paths the caller deletes from disk.
    func prune(_ policy: PrunePolicy) throws -> PruneReport

    /// A test's recent results, newest first.
    func testHistory(identifier: String, pipeline: String?, limit: Int) throws -> [TestHistoryEntry]

    /// Tests that both passed and failed at the same commit (in the same pipeline and layer), counting every
    /// attempt, most recently seen first.
    func flakyTests(pipeline: String?, since: Date?) throws -> [FlakyTest]
}

extension RunStore {
    /// Appends one event; returns its sequence number.
    @discardableResult
    public func appendEvent(_ event: StoredEvent.Draft, runID: String) throws -> Int64 {
        try appendEvents([event], runID: runID)[0]
    }

    /// Marks interrupted the running runs of dead owners on this machine, judging owners with
    /// `RunOwner.liveness()`.
    public func markInterruptedRuns(at date: Date = Date()) throws -> [InterruptedRun] {
        try markInterruptedRuns(at: date) { $0.liveness() }
    }

    /// Resolves what a user typed (`last`, a full id or a unique prefix) to one run id.
    public func resolveRunID(_ typed: String) throws -> String {
        let candidates: [String]
        if typed == "last" {
            candidates = try listRuns(RunFilter(limit: 1)).map(\.runID)
        } else {
            candidates = try runIDs(withPrefix: typed, limit: 50)
        }
        let known = candidates.compactMap(RunID.init)
        switch RunID.resolve(typed, among: known) {
        case .success(let id): return id.value
        case .failure(let error): throw error
        }
    }
}

// MARK: - Values the store takes and returns

/// The process that drives a run: host name, pid and the process's start time, so a pid reused by another
/// process after a crash is not mistaken for the owner.
public struct RunOwner: Sendable, Equatable, Codable {
    public var hostname: String
    public var pid: Int32
    /// An opaque token for the process's start (on Linux the boot id and the start time in clock ticks from
    /// `/proc/<pid>/stat`); `nil` where the platform does not tell.
    public var processStart: String?

    public init(hostname: String, pid: Int32, processStart: String?) {
        self.hostname = hostname
        self.pid = pid
        self.processStart = processStart
    }

    /// Whether an owner is still running, as far as this machine can tell.
    public enum Liveness: Sendable, Equatable {
        case alive
        case dead
        /// The owner runs on another machine: only that machine can tell.
        case unknown
    }

    /// This process.
    public static func current() -> RunOwner {
        let pid = getpid()
        return RunOwner(hostname: localHostname(), pid: pid, processStart: processStartToken(of: pid))
    }

    /// The process with this pid on this machine, as an owner, or `nil` when there is none (or it has exited).
    public static func process(_ pid: Int32) -> RunOwner? {
        guard processExists(pid) else { return nil }
        return RunOwner(hostname: localHostname(), pid: pid, processStart: processStartToken(of: pid))
    }

    /// Whether this owner still runs: `.unknown` for another host; `.dead` when no process has its pid, when
    /// that process is a zombie, or when it started at another time (the pid was reused).
    public func liveness() -> Liveness {
        guard hostname == RunOwner.localHostname() else { return .unknown }
        guard RunOwner.processExists(pid) else { return .dead }
        guard let recorded = processStart else { return .alive }
        guard let now = RunOwner.processStartToken(of: pid) else {
            // Gone (or turned zombie) between the two looks.
            return RunOwner.processExists(pid) ? .alive : .dead
        }
        return now == recorded ? .alive : .dead
    }

    /// `pid 4242 on ci-1`, for messages.
    public var description: String { "pid \(pid) on \(hostname)" }

    static func localHostname() -> String {
        var buffer = [CChar](repeating: 0, count: 256)
        guard gethostname(&buffer, buffer.count - 1) == 0 else { return "localhost" }
        return String(cString: buffer)
    }

    static func processExists(_ pid: Int32) -> Bool {
        guard pid > 0 else { return false }
        if kill(pid, 0) != 0 && errno != EPERM { return false }
        #if os(Linux)
            // A zombie has exited: it only waits for its parent to read its status.
            if let state = procStat(pid)?.state, state == "Z" || state == "X" { return false }
        #endif
        return true
    }

    static func processStartToken(of pid: Int32) -> String? {
        #if os(Linux)
            guard let stat = procStat(pid), stat.state != "Z", stat.state != "X" else { return nil }
            let boot = (try? String(contentsOfFile: "/proc/sys/kernel/random/boot_id", encoding: .utf8))?
                .trimmingCharacters(in: .whitespacesAndNewlines)
            return "\(boot ?? "boot"):\(stat.startTicks)"
        #else
            return nil
        #endif
    }

    #if os(Linux)
        /// Fields of `/proc/<pid>/stat`: the state (field 3) and the start time in clock ticks (field 22). The
        /// command name (field 2) may hold spaces and parentheses, so fields are counted after its last `)`.
        private static func procStat(_ pid: Int32) -> (state: String, startTicks: String)? {
            guard let text = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
                let close = text.lastIndex(of: ")")
            else { return nil }
            let fields = text[text.index(after: close)...].split(separator: " ")
            guard fields.count > 19 else { return nil }
            return (String(fields[0]), String(fields[19]))
        }
    #endif
}

/// Run-level fields to change; `nil` leaves a field as it is.
public struct RunUpdate: Sendable {
    public var status: RunStatus?
    public var commit: String?
    public var resolvedRef: String?
    public var host: RunRecord.HostFacts?
    public var xcode: String?
    public var simulator: SimulatorChoice?
    public var remoteRunFolder: String?
    public var finishedAt: String?
    public var durationSeconds: Double?
    public var exitCode: Int32?
    public var problem: String?

    public init(
        status: RunStatus? = nil, commit: String? = nil, resolvedRef: String? = nil, host: RunRecord.HostFacts? = nil,
        xcode: String? = nil, simulator: SimulatorChoice? = nil, remoteRunFolder: String? = nil,
        finishedAt: String? = nil, durationSeconds: Double? = nil, exitCode: Int32? = nil, problem: String? = nil
    ) {
        self.status = status
        self.commit = commit
        self.resolvedRef = resolvedRef
        self.host = host
        self.xcode = xcode
        self.simulator = simulator
        self.remoteRunFolder = remoteRunFolder
        self.finishedAt = finishedAt
        self.durationSeconds = durationSeconds
        self.exitCode = exitCode
        self.problem = problem
    }

    /// Every run-level field of `record` (not its layers), so the engine can write what it just changed.
    public init(runFieldsOf record: RunRecord) {
        self.init(
            status: record.status, commit: record.commit, resolvedRef: record.resolvedRef, host: record.host,
            xcode: record.xcode, simulator: record.simulator, remoteRunFolder: record.remoteRunFolder,
            finishedAt: record.finishedAt, durationSeconds: record.durationSeconds, exitCode: record.exitCode,
            problem: record.problem)
    }
}

/// A decision on a manual layer.
public enum SignoffDecision: String, Codable, CaseIterable, Sendable {
    case signedOff = "signed-off"
    case rejected

    /// The layer outcome the decision gives.
    public var outcome: LayerOutcome { self == .signedOff ? .signedOff : .rejected }
}

/// A sign-off to append.
public struct SignoffRequest: Sendable, Equatable {
    public var runID: String
    public var layer: String
    public var decision: SignoffDecision
    /// Who signed (login name, chat user).
    public var signedBy: String
    public var note: String?
    public var at: Date

    public init(
        runID: String, layer: String, decision: SignoffDecision, signedBy: String, note: String? = nil,
        at: Date = Date()
    ) {
        self.runID = runID
        self.layer = layer
        self.decision = decision
        self.signedBy = signedBy
        self.note = note
        self.at = at
    }
}

/// A recorded sign-off.
public struct Signoff: Sendable, Equatable, Codable {
    /// Increases with every sign-off in the store: a later sign-off supersedes an earlier one of its layer.
    public var id: Int64
    public var runID: String
    public var layer: String
    public var decision: SignoffDecision
    public var signedBy: String
    public var note: String?
    public var at: Date

    public init(
        id: Int64, runID: String, layer: String, decision: SignoffDecision, signedBy: String, note: String?, at: Date
    ) {
        self.id = id
        self.runID = runID
        self.layer = layer
        self.decision = decision
        self.signedBy = signedBy
        self.note = note
        self.at = at
    }
}

/// One entry of a run's event log: what was shown, as a type and a JSON payload.
public struct StoredEvent: Sendable, Equatable {
    /// Orders events across the store; a follower asks for those after the last one it showed.
    public var sequence: Int64
    public var runID: String
    public var layer: String?
    /// e.g. `layer-started`, `test-finished`, `output`.
    public var type: String
    /// A JSON document (object, array or scalar) describing the event.
    public var payload: String
    public var at: Date

    public init(sequence: Int64, runID: String, layer: String?, type: String, payload: String, at: Date) {
        self.sequence = sequence
        self.runID = runID
        self.layer = layer
        self.type = type
        self.payload = payload
        self.at = at
    }

    /// An event to append.
    public struct Draft: Sendable, Equatable {
        public var type: String
        public var layer: String?
        /// Must be valid JSON; the store refuses anything else.
        public var payload: String
        public var at: Date

        public init(type: String, layer: String? = nil, payload: String = "{}", at: Date = Date()) {
            self.type = type
            self.layer = layer
            self.payload = payload
            self.at = at
        }

        /// An event whose payload is `value` encoded as JSON (sorted keys).
        public init<Payload: Encodable>(type: String, layer: String? = nil, encoding value: Payload, at: Date = Date())
            throws
        {
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
            self.init(
                type: type, layer: layer, payload: String(decoding: try encoder.encode(value), as: UTF8.self), at: at)
        }
    }
}

/// Which runs `listRuns` returns.
public struct RunFilter: Sendable, Equatable {
    public var pipeline: String?
    /// Any of these statuses; empty means all.
    public var statuses: Set<RunStatus>
    /// Runs that started at or after this time.
    public var since: Date?
    /// At most this many runs (the newest).
    public var limit: Int?

    public init(pipeline: String? = nil, statuses: Set<RunStatus> = [], since: Date? = nil, limit: Int? = nil) {
        self.pipeline = pipeline
        self.statuses = statuses
        self.since = since
        self.limit = limit
    }
}

/// A run as `pipe runs list` shows it.
public struct RunSummary: Sendable, Equatable {
    public var runID: String
    public var pipeline: String
    public var status: RunStatus
    public var startedAt: Date
    public var finishedAt: Date?
    public var durationSeconds: Double?
    public var exitCode: Int32?
    public var commit: String?
    public var hostName: String?
    public var requestedBy: String
    public var trigger: String
    public var problem: String?
    public var cancellationRequested: Bool
    /// The layers in run order with their outcomes (`nil` while not ended).
    public var layers: [Layer]

    public struct Layer: Sendable, Equatable {
        public var name: String
        public var outcome: LayerOutcome?

        public init(name: String, outcome: LayerOutcome?) {
            self.name = name
            self.outcome = outcome
        }
    }

    public init(
        runID: String, pipeline: String, status: RunStatus, startedAt: Date, finishedAt: Date?,
        durationSeconds: Double?, exitCode: Int32?, commit: String?, hostName: String?, requestedBy: String,
        trigger: String, problem: String?, cancellationRequested: Bool, layers: [Layer]
    ) {
        self.runID = runID
        self.pipeline = pipeline
        self.status = status
        self.startedAt = startedAt
        self.finishedAt = finishedAt
        self.durationSeconds = durationSeconds
        self.exitCode = exitCode
        self.commit = commit
        self.hostName = hostName
        self.requestedBy = requestedBy
        self.trigger = trigger
        self.problem = problem
        self.cancellationRequested = cancellationRequested
        self.layers = layers
    }
}

/// One run in full: its record as `summary.json` holds it, plus what only the store knows.
public struct StoredRun: Sendable {
    public var record: RunRecord
    /// The process that drove the run (`nil` for runs recorded before owners were).
    public var owner: RunOwner?
    public var cancellation: CancellationRequest?
    /// When the run was found interrupted, if it was.
    public var interruptedAt: Date?
    public var signoffs: [Signoff]
    /// Artifacts of the run itself, outside any layer (those of attempts are in `record`).
    public var runArtifacts: [ArtifactRecord]
    /// When each layer began and ended, by layer name (a skipped layer never began).
    public var layerTimes: [String: LayerTimes]
    /// The last write to this run.
    public var updatedAt: Date

    public struct LayerTimes: Sendable, Equatable {
        public var startedAt: Date?
        public var finishedAt: Date?

        public init(startedAt: Date?, finishedAt: Date?) {
            self.startedAt = startedAt
            self.finishedAt = finishedAt
        }
    }

    public init(
        record: RunRecord, owner: RunOwner?, cancellation: CancellationRequest?, interruptedAt: Date?,
        signoffs: [Signoff], runArtifacts: [ArtifactRecord], layerTimes: [String: LayerTimes], updatedAt: Date
    ) {
        self.record = record
        self.owner = owner
        self.cancellation = cancellation
        self.interruptedAt = interruptedAt
        self.signoffs = signoffs
        self.runArtifacts = runArtifacts
        self.layerTimes = layerTimes
        self.updatedAt = updatedAt
    }

    /// Every artifact path of the run (attempts' and the run's own).
    public var allArtifacts: [ArtifactRecord] {
        record.layers.flatMap { $0.attempts.flatMap(\.artifacts) } + runArtifacts
    }
}

/// A run found `running` with a dead owner and marked `interrupted`.
public struct InterruptedRun: Sendable, Equatable {
    public var runID: String
    public var pipeline: String
    public var owner: RunOwner
    /// The run's last recorded write: the owner died after it.
    public var lastActivity: Date
    /// Layers that had not ended and now end `cancelled`.
    public var cancelledLayers: [String]
    /// The host and folder to clean up, when the run had reached a host.
    public var hostName: String?
    public var remoteRunFolder: String?
    /// The artifacts it had pulled back: kept and listed.
    public var artifacts: [ArtifactRecord]

    public init(
        runID: String, pipeline: String, owner: RunOwner, lastActivity: Date, cancelledLayers: [String],
        hostName: String?, remoteRunFolder: String?, artifacts: [ArtifactRecord]
    ) {
        self.runID = runID
        self.pipeline = pipeline
        self.owner = owner
        self.lastActivity = lastActivity
        self.cancelledLayers = cancelledLayers
        self.hostName = hostName
        self.remoteRunFolder = remoteRunFolder
        self.artifacts = artifacts
    }
}

/// A request, from another process, to cancel a run.
public struct CancellationRequest: Sendable, Equatable {
    public var reason: String
    public var requestedBy: String
    public var at: Date

    public init(reason: String, requestedBy: String, at: Date) {
        self.reason = reason
        self.requestedBy = requestedBy
        self.at = at
    }
}

/// What `requestCancellation` did.
public enum CancellationOutcome: Sendable, Equatable {
    /// The run is in progress: its process will see the request.
    case requested
    /// Someone asked before; that first request stands.
    case alreadyRequested(CancellationRequest)
    /// The run has already ended with this status: nothing to cancel.
    case notInProgress(RunStatus)
}

/// A run folder left on a host that the host's clean-up must remove.
public struct RemoteCleanup: Sendable, Equatable {
    public var runID: String
    public var hostName: String?
    public var remoteRunFolder: String
    public var status: RunStatus

    public init(runID: String, hostName: String?, remoteRunFolder: String, status: RunStatus) {
        self.runID = runID
        self.hostName = hostName
        self.remoteRunFolder = remoteRunFolder
        self.status = status
    }
}

/// Which runs `prune` removes. With both limits, a run goes only when both allow it.
public struct PrunePolicy: Sendable, Equatable {
    /// Keep this many of the newest ended runs (runs in progress are always kept and not counted).
    public var keepLatest: Int?
    /// Remove only runs that started before this time.
    public var olderThan: Date?
    /// Only runs of this pipeline (with `keepLatest`: the newest of this pipeline are kept).
    public var pipeline: String?
    /// Report what would go without removing anything.
    public var dryRun: Bool

    public init(keepLatest: Int? = nil, olderThan: Date? = nil, pipeline: String? = nil, dryRun: Bool = false) {
        self.keepLatest = keepLatest
        self.olderThan = olderThan
        self.pipeline = pipeline
        self.dryRun = dryRun
    }
}

/// What `prune` removed (or, with `dryRun`, would remove).
public struct PruneReport: Sendable, Equatable {
    public var removed: [PrunedRun]
    public var dryRun: Bool

    public init(removed: [PrunedRun], dryRun: Bool) {
        self.removed = removed
        self.dryRun = dryRun
    }

    /// The recorded size of every removed artifact (what deleting the files frees, as far as the store knows).
    public var artifactBytes: Int64 { removed.reduce(0) { $0 + $1.artifactBytes } }
}

/// One run `prune` removed.
public struct PrunedRun: Sendable, Equatable {
    public var runID: String
    public var pipeline: String
    public var status: RunStatus
    public var startedAt: Date
    /// Files and folders (relative to the project folder) the caller deletes.
    public var artifacts: [ArtifactRecord]
    /// A remote folder not yet reported cleaned: the hosts' clean-up still has to remove it.
    public var uncleanedRemoteFolder: RemoteCleanup?

    public init(
        runID: String, pipeline: String, status: RunStatus, startedAt: Date, artifacts: [ArtifactRecord],
        uncleanedRemoteFolder: RemoteCleanup?
    ) {
        self.runID = runID
        self.pipeline = pipeline
        self.status = status
        self.startedAt = startedAt
        self.artifacts = artifacts
        self.uncleanedRemoteFolder = uncleanedRemoteFolder
    }

    public var artifactBytes: Int64 { artifacts.reduce(0) { $0 + ($1.bytes ?? 0) } }
}

/// One past result of a test.
public struct TestHistoryEntry: Sendable, Equatable {
    public var runID: String
    public var pipeline: String
    public var layer: String
    public var attempt: Int
    public var commit: String?
    public var status: TestCaseResult.Status
    public var durationSeconds: Double?
    public var failureMessage: String?
    /// When the attempt began.
    public var at: Date

    public init(
        runID: String, pipeline: String, layer: String, attempt: Int, commit: String?, status: TestCaseResult.Status,
        durationSeconds: Double?, failureMessage: String?, at: Date
    ) {
        self.runID = runID
        self.pipeline = pipeline
        self.layer = layer
        self.attempt = attempt
        self.commit = commit
        self.status = status
        self.durationSeconds = durationSeconds
        self.failureMessage = failureMessage
        self.at = at
    }
}

/// A test that both passed and failed at one commit.
public struct FlakyTest: Sendable, Equatable {
    public var pipeline: String
    public var layer: String
    public var identifier: String
    public var commit: String
    public var passes: Int
    public var failures: Int
    /// The runs that saw it, oldest first.
    public var runIDs: [String]
    public var lastSeen: Date

    public init(
        pipeline: String, layer: String, identifier: String, commit: String, passes: Int, failures: Int,
        runIDs: [String], lastSeen: Date
    ) {
        self.pipeline = pipeline
        self.layer = layer
        self.identifier = identifier
        self.commit = commit
        self.passes = passes
        self.failures = failures
        self.runIDs = runIDs
        self.lastSeen = lastSeen
    }
}

// MARK: - Building run records outside the engine

// The record's synthesized memberwise initializers are internal, and a public initializer with the same labels
// would make the engine's calls ambiguous; a store reading records back (SQLite now, PostgreSQL later) and the
// tests of the commands build records with these instead.

extension RunRecord {
    /// A run record with every field given.
    public static func make(
        runID: String, pipeline: String, pipelineFile: String, status: RunStatus, request: Request,
        commit: String? = nil, resolvedRef: String? = nil, host: HostFacts? = nil, xcode: String? = nil,
        simulator: SimulatorChoice? = nil, remoteRunFolder: String? = nil, startedAt: String, finishedAt: String? = nil,
        durationSeconds: Double? = nil, exitCode: Int32? = nil, problem: String? = nil, layers: [LayerRecord],
        schemaVersion: Int = RunRecord.currentSchemaVersion
    ) -> RunRecord {
        RunRecord(
            schemaVersion: schemaVersion, runID: runID, pipeline: pipeline, pipelineFile: pipelineFile, status: status,
            request: request, commit: commit, resolvedRef: resolvedRef, host: host, xcode: xcode, simulator: simulator,
            remoteRunFolder: remoteRunFolder, startedAt: startedAt, finishedAt: finishedAt,
            durationSeconds: durationSeconds, exitCode: exitCode, problem: problem, layers: layers)
    }
}

extension RunRecord.Request {
    /// A run request with every field given.
    public static func make(
        pipeline: String, ref: String, repository: String? = nil, workspace: String,
        parameters: [String: String] = [:], udid: String? = nil, host: String? = nil, requestedBy: String,
        reason: String? = nil, trigger: String
    ) -> RunRecord.Request {
        RunRecord.Request(
            pipeline: pipeline, ref: ref, repository: repository, workspace: workspace, parameters: parameters,
            udid: udid, host: host, requestedBy: requestedBy, reason: reason, trigger: trigger)
    }
}

extension RunRecord.HostFacts {
    /// Host facts with every field given.
    public static func make(name: String, endpoint: String, keyType: String, fingerprint: String)
        -> RunRecord.HostFacts
    {
        RunRecord.HostFacts(name: name, endpoint: endpoint, keyType: keyType, fingerprint: fingerprint)
    }
}

extension RunRecord.LayerRecord {
    /// A layer record with every field given.
    public static func make(
        name: String, plugin: String, gate: Gate, needs: [String] = [], outcome: LayerOutcome? = nil,
        evidence: [String] = [], attempts: [RunRecord.AttemptRecord] = [], tests: [TestCaseResult] = []
    ) -> RunRecord.LayerRecord {
        RunRecord.LayerRecord(
            name: name, plugin: plugin, gate: gate, needs: needs, outcome: outcome, evidence: evidence,
            attempts: attempts, tests: tests)
    }
}

extension RunRecord.AttemptRecord {
    /// An attempt record with every field given.
    public static func make(
        attempt: Int, outcome: LayerOutcome? = nil, evidence: [String] = [], exit: String? = nil,
        simulatorUDID: String? = nil, startedAt: String, finishedAt: String? = nil, durationSeconds: Double? = nil,
        facts: [String: String] = [:], artifacts: [ArtifactRecord] = []
    ) -> RunRecord.AttemptRecord {
        RunRecord.AttemptRecord(
            attempt: attempt, outcome: outcome, evidence: evidence, exit: exit, simulatorUDID: simulatorUDID,
            startedAt: startedAt, finishedAt: finishedAt, durationSeconds: durationSeconds, facts: facts,
            artifacts: artifacts)
    }
}
