import Foundation

/// The controller's queue, kept in the run store so that every process of a coordinator shares it: `pipe enqueue`
/// and the chat-ops trigger add requests, the one running controller claims and runs them.
///
/// Each request gets its run id when it is enqueued (what a chat answers with); the run store's record of the run
/// appears under that id when the controller starts it. Order: `QueueSource.priority` (people before schedules
/// and watches), then first come first served. A claim is one transaction, so one item is run by one controller.
/// Every call is synchronous and durable when it returns, like `RunStore`'s.
///
/// The store also keeps what makes the controller's triggers fire once: the lock that admits one controller per
/// store, each schedule's last slot and each watch's last seen commit.
public protocol RunQueue: AnyObject {
    // MARK: Requests

    /// Adds a request under a new run id. With a `triggerKey` already used, adds nothing and says which run it
    /// started.
    func enqueue(_ request: QueueRequest, at date: Date) throws -> EnqueueOutcome

    /// Queue items in `states` (every state when `nil`), in the order the controller takes them (priority, then
    /// first come), at most `limit`.
    func queueItems(states: Set<QueuedRun.State>?, limit: Int) throws -> [QueuedRun]

    /// One item by run id.
    func queuedRun(_ runID: String) throws -> QueuedRun?

    /// The run id and pipeline of up to `limit` waiting items, in the order they will be taken: what a scheduling
    /// pass plans with, without reading (and decoding) every item whole.
    func waitingPipelines(limit: Int) throws -> [(runID: String, pipeline: String)]

    /// Takes a `queued` item for `owner`; `false` when it is no longer queued (cancelled, taken).
    func claim(runID: String, owner: RunOwner, at date: Date) throws -> Bool

    /// Takes every `queued` item of `runIDs` for `owner` at once (the controller claims all it starts in a
    /// scheduling pass together); returns the ids taken, leaving out those no longer queued.
    func claim(runIDs: [String], owner: RunOwner, at date: Date) throws -> Set<String>

    /// Puts a claimed item whose run never started back in the queue, in its place.
    func releaseClaim(runID: String) throws

    /// Ends a claimed item: `finished`, `failed` (with `problem`) or `interrupted`.
    func finish(runID: String, state: QueuedRun.State, problem: String?, at date: Date) throws

    /// An interrupted item runs again once: marks it `interrupted` and queues a copy under a new run id, ahead of
    /// what was enqueued after it. Returns the copy; `nil` (and the item just marked `interrupted`) when the item
    /// is itself a copy, so a run that keeps killing its controller is not retried forever.
    func requeueInterrupted(runID: String, problem: String, at date: Date) throws -> QueuedRun?

    /// Cancels a `queued` item; `false` when it is not waiting any more.
    func cancelQueued(runID: String, reason: String, at date: Date) throws -> Bool

    // MARK: The controller lock

    /// Whether several controllers may serve this store at once (PostgreSQL). Then no controller takes the lock:
    /// every claim and lease is a write that runs one at a time in the store, so a queued run is taken once and a
    /// host slot is held once whichever controller asks. A store that admits one controller (SQLite) is locked.
    var admitsSeveralControllers: Bool { get }

    /// Takes the lock for `owner` unless a live controller holds it; a dead holder's lock is taken over.
    func acquireControllerLock(
        owner: RunOwner, configPath: String?, at date: Date, isOwnerAlive: (RunOwner) -> RunOwner.Liveness
    ) throws -> ControllerLockOutcome

    /// Gives the lock back if `owner` holds it.
    @discardableResult
    func releaseControllerLock(owner: RunOwner) throws -> Bool

    /// Who holds the lock, if anyone.
    func controllerLock() throws -> ControllerLock?

    // MARK: Schedules and watches

    /// Every schedule the store knows.
    func scheduleStates() throws -> [ScheduleState]

    /// A schedule's state, recording `baseline` as the moment it was first seen when it is new.
    func scheduleState(name: String, baseline: Date) throws -> ScheduleState

    /// Records `slot` as the schedule's last slot and, with a request, enqueues it, in one transaction; `nil` when
    /// the schedule already has this slot or a later one (another process, or an earlier life of this one, fired
    /// it), so a slot fires once.
    func recordScheduleSlot(name: String, slot: Date, enqueue request: QueueRequest?, at date: Date) throws
        -> ScheduleState?

    /// The heads every watch last saw.
    func watchHeads() throws -> [WatchHead]

    /// Records a watch's head on a branch.
    func recordWatchHead(_ head: WatchHead) throws
}

extension RunQueue {
    public var admitsSeveralControllers: Bool { false }

    /// Takes the lock, judging owners with `RunOwner.liveness()`.
    public func acquireControllerLock(owner: RunOwner = .current(), configPath: String?) throws
        -> ControllerLockOutcome
    {
        try acquireControllerLock(owner: owner, configPath: configPath, at: Date(), isOwnerAlive: { $0.liveness() })
    }

    /// One claim after another; a store that can do better claims them in one transaction.
    public func claim(runIDs: [String], owner: RunOwner, at date: Date) throws -> Set<String> {
        var taken: Set<String> = []
        for runID in runIDs where try claim(runID: runID, owner: owner, at: date) { taken.insert(runID) }
        return taken
    }

    /// From the whole items; a store that can do better reads only the two columns.
    public func waitingPipelines(limit: Int) throws -> [(runID: String, pipeline: String)] {
        try waitingRuns(limit: limit).map { ($0.runID, $0.request.pipeline) }
    }

    /// Items waiting to run, in the order they will be taken.
    public func waitingRuns(limit: Int = 10_000) throws -> [QueuedRun] {
        try queueItems(states: [.queued], limit: limit)
    }
}
