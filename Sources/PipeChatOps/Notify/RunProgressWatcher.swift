import Foundation
import PipeCore

/// Follows queued runs through the backend's records and sends their three messages to the chat: started (host,
/// UDID), the merge gate's verdict when the automated layers have ended, and the final state.
///
/// One thread polls every watched run's record (`ChatOpsBackend.record(run:)`), so it works the same whether the
/// run is driven in this process or by the controller: both write the run store before anything is shown. Never
/// blocks a run: it only reads, and sending goes through the `ResponseNotifier`'s queue.
public final class RunProgressWatcher: @unchecked Sendable {
    private struct Watch {
        var runID: String
        var channel: ResponseChannel
        var sentStarted = false
        var sentMerge = false
    }

    private let backend: ChatOpsBackend
    private let notifier: ResponseNotifier
    private let interval: Double
    private let log: @Sendable (String) -> Void
    private let condition = NSCondition()
    private var watches: [Watch] = []
    private var stopped = false
    private let finished = DispatchGroup()

    public init(
        backend: ChatOpsBackend, notifier: ResponseNotifier, interval: Double = 1,
        log: @escaping @Sendable (String) -> Void
    ) {
        self.backend = backend
        self.notifier = notifier
        self.interval = interval
        self.log = log
        finished.enter()
        let thread = Thread { [self] in
            while waitForNextRound() { poll() }
            finished.leave()
        }
        thread.name = "pipe-chatops-progress"
        thread.start()
    }

    /// Starts following `runID`, sending its messages to `channel`.
    public func watch(_ runID: String, channel: ResponseChannel) {
        condition.lock()
        watches.append(Watch(runID: runID, channel: channel))
        condition.signal()
        condition.unlock()
    }

    /// Runs still followed.
    public var watchedRuns: [String] {
        condition.lock()
        defer { condition.unlock() }
        return watches.map(\.runID)
    }

    public func stop() {
        condition.lock()
        stopped = true
        condition.broadcast()
        condition.unlock()
        finished.wait()
    }

    private func waitForNextRound() -> Bool {
        condition.lock()
        defer { condition.unlock() }
        while watches.isEmpty && !stopped { condition.wait() }
        if !stopped { _ = condition.wait(until: Date().addingTimeInterval(interval)) }
        return !stopped
    }

    private func poll() {
        condition.lock()
        let current = watches
        condition.unlock()
        var updated: [String: Watch?] = [:]
        for var watch in current {
            guard Date() < watch.channel.expires else {
                log("chatops: stopped following run \(watch.runID): its response_url expired")
                updated[watch.runID] = .some(nil)
                continue
            }
            let record: RunRecord?
            do {
                record = try backend.record(run: watch.runID)
            } catch {
                log("chatops: could not read run \(watch.runID): \(error)")
                continue
            }
            guard let record else { continue }
            let ended = [.finished, .cancelled, .interrupted].contains(record.status)
            if !watch.sentStarted, Self.hasStarted(record) {
                notifier.send(ChatMessages.started(record), to: watch.channel, summary: "run \(record.runID) started")
                watch.sentStarted = true
            }
            let merge = record.layers.filter { $0.gate == .merge }
            if !watch.sentMerge, !merge.isEmpty, merge.allSatisfy({ $0.outcome != nil }) || ended,
                !(ended && record.layers.allSatisfy({ $0.attempts.isEmpty }) && record.problem != nil)
            {
                notifier.send(
                    ChatMessages.mergeGate(record), to: watch.channel, summary: "the merge gate of run \(record.runID)")
                watch.sentMerge = true
            }
            if ended {
                notifier.send(ChatMessages.final(record), to: watch.channel, summary: "the end of run \(record.runID)")
                updated[watch.runID] = .some(nil)
            } else {
                updated[watch.runID] = watch
            }
        }
        condition.lock()
        watches = watches.compactMap { watch in
            guard let change = updated[watch.runID] else { return watch }
            return change
        }
        condition.unlock()
    }

    /// A host is connected and the simulator chosen (or a layer has begun, for pipelines without a simulator).
    static func hasStarted(_ record: RunRecord) -> Bool {
        guard record.host != nil else { return false }
        return record.simulator != nil || record.layers.contains { !$0.attempts.isEmpty || $0.outcome != nil }
    }
}
