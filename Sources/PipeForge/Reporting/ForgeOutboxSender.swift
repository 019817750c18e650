import Foundation
import PipeCore

/// Sends the forge outbox: takes one target at a time from the store (so controllers sharing a store never reorder
/// a target's updates), sends its newest state through `deliver`, and records how it went. A forge that asked Pipe
/// to slow down gets nothing more until the time it named; the others go on.
///
/// Every update is idempotent where `deliver` sends it (a status is a state, a comment is found by its marker, a
/// check run by its `external_id`), so an update sent twice after a crash changes nothing.
public final class ForgeOutboxSender: @unchecked Sendable {
    /// How one send ended, as the forge client saw it.
    public enum Outcome: Sendable, Equatable {
        case sent
        /// Try again in `seconds`; with `forgeWaits`, nothing else goes to that forge meanwhile (a rate limit).
        case retry(seconds: Double, error: String, forgeWaits: Bool)
        /// The forge refused it for good.
        case failed(String)
    }

    /// What one pass did.
    public struct Report: Sendable, Equatable {
        public var sent: Int
        public var retrying: Int
        public var failed: Int

        public init(sent: Int = 0, retrying: Int = 0, failed: Int = 0) {
            self.sent = sent
            self.retrying = retrying
            self.failed = failed
        }
    }

    private let store: ForgeStore
    private let owner: String
    private let clock: () -> Date
    private let deliver: (ForgeUpdate) -> Outcome
    private let leaseSeconds: Double
    private let maximumAttempts: Int
    private let lock = NSLock()
    /// Forges waiting out a rate limit, until when.
    private var forgeHolds: [String: Date] = [:]
    private let stopped = CancellationToken()
    private let wakeUp = DispatchSemaphore(value: 0)

    /// - Parameters:
    ///   - owner: who claims, unique among the store's senders (`<host>:<pid>`).
    ///   - leaseSeconds: how long a claim holds; a sender that died lets go after it.
    ///   - maximumAttempts: sends of one update before it is given up.
    public init(
        store: ForgeStore, owner: String, clock: @escaping () -> Date = Date.init, leaseSeconds: Double = 120,
        maximumAttempts: Int = 12, deliver: @escaping (ForgeUpdate) -> Outcome
    ) {
        self.store = store
        self.owner = owner
        self.clock = clock
        self.deliver = deliver
        self.leaseSeconds = leaseSeconds
        self.maximumAttempts = max(1, maximumAttempts)
    }

    /// Sends everything due now, one target after another, and says what it did.
    public func sendDue() throws -> Report {
        var report = Report()
        while !stopped.isCancelled {
            let now = clock()
            guard
                let update = try store.claimForgeUpdate(
                    owner: owner, at: now, leaseSeconds: leaseSeconds, excludingForges: heldForges(at: now))
            else { break }
            let outcome = deliver(update)
            let finished = clock()
            switch outcome {
            case .sent:
                try store.finishForgeUpdate(update.sequence, owner: owner, .sent, at: finished)
                report.sent += 1
            case .failed(let error):
                try store.finishForgeUpdate(update.sequence, owner: owner, .failed(error), at: finished)
                report.failed += 1
            case .retry(let seconds, let error, let forgeWaits):
                let next = finished.addingTimeInterval(max(0, seconds))
                if forgeWaits { hold(update.draft.forge, until: next) }
                if update.attempts + 1 >= maximumAttempts {
                    try store.finishForgeUpdate(
                        update.sequence, owner: owner,
                        .failed("gave up after \(update.attempts + 1) attempts: \(error)"), at: finished)
                    report.failed += 1
                } else {
                    try store.finishForgeUpdate(
                        update.sequence, owner: owner, .retry(at: next, error: error), at: finished)
                    report.retrying += 1
                }
            }
        }
        return report
    }

    /// Sends on a thread of its own until `stop()`: every `pollSeconds`, or at once after `wake()`.
    public func start(pollSeconds: Double = 1, onError: @escaping @Sendable (Error) -> Void) {
        let thread = Thread { [self] in
            while !stopped.isCancelled {
                do {
                    _ = try sendDue()
                } catch {
                    onError(error)
                }
                _ = wakeUp.wait(timeout: .now() + pollSeconds)
            }
        }
        thread.name = "pipe.controller.forge-outbox"
        thread.start()
    }

    /// Something new was written to the outbox: send it without waiting for the next poll.
    public func wake() { wakeUp.signal() }

    public func stop() {
        stopped.cancel(reason: "controller stopping")
        wakeUp.signal()
    }

    private func hold(_ forge: String, until date: Date) {
        lock.lock()
        defer { lock.unlock() }
        forgeHolds[forge] = max(forgeHolds[forge] ?? .distantPast, date)
    }

    private func heldForges(at date: Date) -> Set<String> {
        lock.lock()
        defer { lock.unlock() }
        forgeHolds = forgeHolds.filter { $0.value > date }
        return Set(forgeHolds.keys)
    }
}
