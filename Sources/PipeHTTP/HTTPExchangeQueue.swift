import Foundation

/// The one thread-safe hand-over between libmicrohttpd's connection threads and the workers that answer.
///
/// A connection thread puts the work that answers a complete request in and waits (bounded) for the answer; a
/// worker takes it out, does it, and wakes the connection thread. Bounded: when it is full a request is answered 503 at once.
final class HTTPExchangeQueue: @unchecked Sendable {
    /// One request waiting for its answer.
    final class Exchange: @unchecked Sendable {
        /// Makes the answer (the endpoint's handler, on the worker's thread).
        let work: () -> HTTPResponse
        private let answered = DispatchSemaphore(value: 0)
        private let lock = NSLock()
        private var response: HTTPResponse?
        private var abandoned = false

        init(work: @escaping () -> HTTPResponse) { self.work = work }

        /// Called by the worker; `false` when the connection gave up waiting (its answer will never be sent).
        @discardableResult
        func answer(_ response: HTTPResponse) -> Bool {
            lock.lock()
            defer { lock.unlock() }
            guard !abandoned else { return false }
            self.response = response
            answered.signal()
            return true
        }

        /// Called by the connection thread: the answer, or `nil` when none came in `seconds`.
        func wait(seconds: Double) -> HTTPResponse? {
            _ = answered.wait(timeout: .now() + max(0, seconds))
            lock.lock()
            defer { lock.unlock() }
            if response == nil { abandoned = true }
            return response
        }
    }

    private let condition = NSCondition()
    private var waiting: [Exchange] = []
    private var closed = false
    let capacity: Int

    init(capacity: Int) { self.capacity = capacity }

    /// Adds a request's work; `nil` when the queue is full or closed.
    func put(_ work: @escaping () -> HTTPResponse) -> Exchange? {
        condition.lock()
        defer { condition.unlock() }
        guard !closed, waiting.count < capacity else { return nil }
        let exchange = Exchange(work: work)
        waiting.append(exchange)
        condition.signal()
        return exchange
    }

    /// The oldest request, waiting for one; `nil` once the queue is closed.
    func take() -> Exchange? {
        condition.lock()
        defer { condition.unlock() }
        while waiting.isEmpty && !closed { condition.wait() }
        guard !waiting.isEmpty else { return nil }
        return waiting.removeFirst()
    }

    /// Wakes every worker; requests still waiting are answered by their connection's timeout.
    func close() {
        condition.lock()
        closed = true
        condition.broadcast()
        condition.unlock()
    }
}
