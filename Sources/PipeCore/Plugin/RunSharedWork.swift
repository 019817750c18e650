import Foundation

/// Work that several layers of one run need done only once — one `build-for-testing` for the layers that share a
/// scheme and destination — while those layers may run at the same time on different threads.
///
/// The first layer to ask for a key does the work; the others wait for it and get the same value (or the same
/// error). A layer that must not reuse a failure (a retry after an infrastructure failure) calls `forget(_:)`
/// first, so the next `once` does the work again.
public final class RunSharedWork: @unchecked Sendable {
    private enum Entry {
        case running
        case done(Result<Any, Error>)
    }

    private let condition = NSCondition()
    private var entries: [String: Entry] = [:]

    public init() {}

    /// The value of `key`, computed by `body` on the first call of the run; later and concurrent calls wait for it.
    public func once<Value>(_ key: String, _ body: () throws -> Value) throws -> Value {
        condition.lock()
        while true {
            switch entries[key] {
            case .running:
                condition.wait()
            case .done(let result):
                condition.unlock()
                return try Self.typed(result, key: key)
            case nil:
                entries[key] = .running
                condition.unlock()
                let result = Result<Any, Error> { try body() }
                condition.lock()
                entries[key] = .done(result)
                condition.broadcast()
                condition.unlock()
                return try Self.typed(result, key: key)
            }
        }
    }

    private static func typed<Value>(_ result: Result<Any, Error>, key: String) throws -> Value {
        guard let value = try result.get() as? Value else {
            // A key is named by the one plugin that uses it, so it always carries the same type within a run.
            preconditionFailure("shared work '\(key)' was asked for as \(Value.self), but holds another type")
        }
        return value
    }

    /// Whether `key` has been computed (successfully or not) in this run.
    public func isDone(_ key: String) -> Bool {
        condition.lock()
        defer { condition.unlock() }
        if case .done = entries[key] { return true }
        return false
    }

    /// Drops a finished value that `isStale` rejects (a failed build), checked and dropped under one lock: a
    /// retry recomputes a failure, while a good value another layer computed meanwhile is kept. Returns whether
    /// it dropped one.
    @discardableResult
    public func forget<Value>(_ key: String, where isStale: (Result<Value, Error>) -> Bool) -> Bool {
        condition.lock()
        defer { condition.unlock() }
        guard case .done(let result) = entries[key] else { return false }
        let typed = result.flatMap { value -> Result<Value, Error> in
            guard let value = value as? Value else {
                preconditionFailure("shared work '\(key)' was asked for as \(Value.self), but holds another type")
            }
            return .success(value)
        }
        guard isStale(typed) else { return false }
        entries[key] = nil
        return true
    }

    /// Drops a finished value so the next `once(key)` computes it again; a running computation is left alone.
    public func forget(_ key: String) {
        condition.lock()
        defer { condition.unlock() }
        if case .done = entries[key] { entries[key] = nil }
    }
}
