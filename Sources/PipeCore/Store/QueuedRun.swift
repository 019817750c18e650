import Foundation

/// A run in the controller's queue, from the moment it is enqueued (when its run id is chosen) to its end.
public struct QueuedRun: Sendable, Equatable {
    /// Where a queued run is in its life.
    public enum State: String, Sendable, Codable, CaseIterable {
        /// Waiting for the controller.
        case queued
        /// Taken by a controller (`claimedBy`), which starts its run: from then on the run store has the run.
        case claimed
        /// The run ended (whatever its verdict); `runStatus` in the store says how.
        case finished
        /// The run could not start (its pipeline was removed or became invalid, a secret is missing…): `problem`.
        case failed
        /// Cancelled before it started (`pipe runs cancel`).
        case cancelled
        /// Its controller died while the run was running; it was requeued once as `requeuedAs`, or not again.
        case interrupted
    }

    /// The run id the run will have (chosen at enqueueing, so a chat can answer with it at once).
    public var runID: String
    public var request: QueueRequest
    public var priority: Int
    public var state: State
    /// 1, or 2 for the copy of an interrupted run that was requeued.
    public var attempt: Int
    /// For a requeued run, the interrupted run it runs again.
    public var requeueOf: String?
    public var enqueuedAt: Date
    public var claimedAt: Date?
    public var claimedBy: RunOwner?
    public var finishedAt: Date?
    /// Why it failed or was cancelled, or what became of it.
    public var problem: String?

    public init(
        runID: String, request: QueueRequest, priority: Int, state: State, attempt: Int = 1, requeueOf: String? = nil,
        enqueuedAt: Date, claimedAt: Date? = nil, claimedBy: RunOwner? = nil, finishedAt: Date? = nil,
        problem: String? = nil
    ) {
        self.runID = runID
        self.request = request
        self.priority = priority
        self.state = state
        self.attempt = attempt
        self.requeueOf = requeueOf
        self.enqueuedAt = enqueuedAt
        self.claimedAt = claimedAt
        self.claimedBy = claimedBy
        self.finishedAt = finishedAt
        self.problem = problem
    }
}
