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

    /// The runs still `running` and the process that owns each: a cheap read for judging owners.
    func runningRunOwners() throws -> [(runID: String, owner: RunOwner)]

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
