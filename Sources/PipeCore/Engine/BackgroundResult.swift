import Foundation

/// Work that runs on a thread of its own while the caller does something else, and whose result the caller waits
/// for later (the run's connection to a host while its checkout is made).
///
/// `abandon()` tells the work that its result is no longer wanted; the work asks through the closure it is given
/// (long waits check it). `wait()` still returns only once the work ended, so nothing it holds outlives the caller.
final class BackgroundResult<Value>: @unchecked Sendable {
    private let ended = DispatchSemaphore(value: 0)
    private let lock = NSLock()
    private var result: Result<Value, Error>?
    private var abandoned = false

    init(_ work: @escaping (_ abandoned: () -> Bool) throws -> Value) {
        let thread = Thread { [self] in
            let outcome = Result { try work { self.lock.withLock { self.abandoned } } }
            lock.withLock { result = outcome }
            ended.signal()
        }
        thread.start()
    }

    /// The result is no longer wanted.
    func abandon() {
        lock.withLock { abandoned = true }
    }

    /// The work's result, once it ended.
    func wait() -> Result<Value, Error> {
        ended.wait()
        ended.signal()
        return lock.withLock { result! }
    }
}
