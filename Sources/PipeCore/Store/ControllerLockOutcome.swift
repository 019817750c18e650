/// What `RunQueue.acquireControllerLock` found.
public enum ControllerLockOutcome: Sendable, Equatable {
    /// This process holds the lock now; `recoveredFrom` is the dead controller that held it before, if any.
    case acquired(recoveredFrom: ControllerLock?)
    /// Another live controller (or one on another machine, which this one cannot judge) holds it.
    case held(by: ControllerLock, liveness: RunOwner.Liveness)
}
