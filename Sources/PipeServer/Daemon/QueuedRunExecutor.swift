import Foundation
import PipeCore

/// What the controller needs from the command line to run a queued request: the pipeline loaded from the project
/// folder, the hosts it may use, and the engine with its adapters (checkout, SSH, the simulator inspector).
///
/// `prepare` and the lookups run on the controller's thread; `execute` runs on a thread of its own per run and
/// returns when the run has ended.
public protocol QueuedRunExecutor: AnyObject, Sendable {
    /// The run request of a queued run (the pipeline by name with the item's parameters and ref, its secrets);
    /// throws, with a message for the log, when it cannot run.
    func prepare(_ item: QueuedRun) throws -> RunRequest

    /// The hosts a queued run's pipeline may run on (its host selection among the hosts file's hosts).
    func hosts(for item: QueuedRun) throws -> [HostConfig]

    /// What a watch polls: its pipeline's repository (a URL or a local path).
    func repository(for watch: WatchConfig) throws -> String

    /// Runs `request` under `runID` to its end; `cancellation` stops it as Ctrl-C stops `pipe run`.
    func execute(_ request: RunRequest, runID: String, cancellation: CancellationToken) -> ExecutedRun

    /// Stops, on its host, what a run of a dead coordinator still runs there (the process groups its layers
    /// recorded), before the run is marked interrupted and its slots go to others. Says what it did, for the log;
    /// `isProblem` when something could not be stopped or checked.
    func stopRemoteWork(of run: StoredRun) -> (message: String, isProblem: Bool)?
}

/// How a run the controller started ended.
public struct ExecutedRun: Sendable, Equatable {
    /// The run's status in the store (`finished`, `cancelled`), or `nil` when it did not start.
    public var status: RunStatus?
    /// `pipe run`'s exit code for it.
    public var exitCode: Int32?
    /// Why it did not start or ended early.
    public var problem: String?

    public init(status: RunStatus?, exitCode: Int32?, problem: String?) {
        self.status = status
        self.exitCode = exitCode
        self.problem = problem
    }
}
