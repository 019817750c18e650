/// What `RunQueue.enqueue` did.
public enum EnqueueOutcome: Sendable, Equatable {
    /// The request is queued under a new run id.
    case queued(QueuedRun)
    /// A request with the same trigger key was queued before (this SHA, this schedule slot): nothing was added.
    case alreadyTriggered(key: String, runID: String)

    /// The new queued run, if one was added.
    public var queued: QueuedRun? {
        if case .queued(let run) = self { return run }
        return nil
    }
}
