import Foundation
import PipeCore

/// Why the controller cannot start.
public enum ControllerError: Error, Equatable, CustomStringConvertible {
    /// Another controller drives this store's queue.
    case alreadyRunning(ControllerLock, liveness: RunOwner.Liveness, store: String)

    public var description: String {
        switch self {
        case .alreadyRunning(let lock, let liveness, let store):
            let since = ISO8601DateFormatter().string(from: lock.acquiredAt)
            var text =
                "another controller already drives the queue of \(store): \(lock.owner.description), since \(since)"
            if let config = lock.configPath { text += ", with \(config)" }
            switch liveness {
            case .unknown:
                text +=
                    ". It runs on another machine, which this one cannot check: stop it there; if that machine is "
                    + "gone for good, remove its lock with `sqlite3 \(store) 'DELETE FROM controller_lock'`"
            default:
                text +=
                    ". Only one controller may run per run store: stop that one first (kill -TERM \(lock.owner.pid)) "
                    + "or give this one another --store"
            }
            return text
        }
    }
}
