import Foundation

/// Writes a run's every state change, before it is shown: the run record (`artifacts/<run id>/summary.json`,
/// rewritten atomically) and, when there is one, the run store.
///
/// It is also the event sink the engine and plugins emit to: each event is appended to the store, then passed
/// on to the renderers, so a crash never loses what a person saw. Layers running at once emit from their own
/// threads: events are stored and forwarded one at a time, in one order, so renderers need no lock of their own.
/// State changes are serialized by `RunState.locked`, which calls the writing methods here.
final class RunJournal: EventSink, @unchecked Sendable {
    let recordURL: URL
    private let store: RunStore?
    private let runID: String
    private let forward: EventSink
    /// Masks secret values in every event before it is stored or shown.
    let redactor: SecretRedactor
    /// An event that could not be stored: the next state change reports it (emit cannot throw).
    private var eventFailure: Error?
    /// Serializes `emit` (and guards `eventFailure`).
    private let emitting = NSLock()
    /// Why the store was given up (it stayed unreachable for its whole retry time), guarded by `losing`. From then
    /// on the run is recorded in summary.json alone, and `lostStore` is told once, so the run can stop its work.
    private var storeLoss: String?
    private let losing = NSLock()
    var lostStore: (@Sendable (String) -> Void)?

    init(recordURL: URL, runID: String, store: RunStore?, forward: EventSink, redactor: SecretRedactor) {
        self.recordURL = recordURL
        self.runID = runID
        self.store = store
        self.forward = forward
        self.redactor = redactor
    }

    var hasStore: Bool { store != nil }

    func begin(_ record: RunRecord) throws {
        try record.write(to: recordURL)
        try store?.createRun(record, owner: .current())
    }

    /// The run-level fields changed (commit, host, simulator, status, …).
    func runChanged(_ record: RunRecord) throws {
        try record.write(to: recordURL)
        try storing { try $0.updateRun(runID, RunUpdate(runFieldsOf: record)) }
        try reportEventFailure()
    }

    func attemptStarted(_ record: RunRecord, layer: String, attempt: RunRecord.AttemptRecord) throws {
        try record.write(to: recordURL)
        try storing { try $0.startAttempt(attempt, runID: runID, layer: layer) }
    }

    func attemptFinished(
        _ record: RunRecord, layer: String, attempt: RunRecord.AttemptRecord, tests: [TestCaseResult]
    ) throws {
        try record.write(to: recordURL)
        try storing { store in
            try store.finishAttempt(attempt, runID: runID, layer: layer)
            if !tests.isEmpty {
                try store.recordTestResults(tests, runID: runID, layer: layer, attempt: attempt.attempt)
            }
        }
        try reportEventFailure()
    }

    func layerFinished(_ record: RunRecord, layer: RunRecord.LayerRecord, at date: Date) throws {
        try record.write(to: recordURL)
        if let outcome = layer.outcome {
            try storing {
                try $0.finishLayer(
                    runID: runID, layer: layer.name, outcome: outcome, evidence: layer.evidence, at: date)
            }
        }
        try reportEventFailure()
    }

    /// The run's remote folder is gone from the host: nothing is left for the hosts' clean-up.
    func remoteFolderCleaned(at date: Date) {
        guard lostStoreReason == nil else { return }
        try? store?.markRemoteFolderCleaned(runID: runID, at: date)
    }

    /// A cancellation another process asked for (`pipe runs cancel`), if any.
    func cancellationRequested() -> String? {
        guard let store, lostStoreReason == nil else { return nil }
        let request: CancellationRequest?
        do {
            request = try store.cancellationRequest(runID: runID)
        } catch {
            // Polled every few seconds, this is what finds a store gone while a layer runs quietly.
            giveUpIfUnreachable(error)
            return nil
        }
        guard let request else { return nil }
        return "cancelled by \(request.requestedBy): \(request.reason)"
    }

    /// Stores an event only the store needs (what `pipe hosts clean` reads back), not shown to anyone.
    func record(_ draft: StoredEvent.Draft) throws {
        try storing { _ = try $0.appendEvent(draft, runID: runID) }
    }

    func emit(_ original: RunEvent) {
        let event = original.redacted(by: redactor)
        emitting.lock()
        defer { emitting.unlock() }
        do {
            try storing {
                _ = try $0.appendEvent(
                    StoredEvent.Draft(type: event.typeName, layer: event.layerName, payload: event.jsonPayload),
                    runID: runID)
            }
        } catch {
            if eventFailure == nil { eventFailure = error }
        }
        forward.emit(event)
    }

    /// Why the store was given up, if it was.
    var lostStoreReason: String? {
        losing.lock()
        defer { losing.unlock() }
        return storeLoss
    }

    /// Writes to the store unless it was given up. A store unreachable for its whole retry time is given up here
    /// (the run goes on only to stop its work and end); any other failure is thrown.
    private func storing(_ body: (RunStore) throws -> Void) throws {
        guard let store, lostStoreReason == nil else { return }
        do {
            try body(store)
        } catch {
            guard giveUpIfUnreachable(error) else { throw error }
        }
    }

    /// Gives the store up when `error` says it stayed unreachable; returns whether it did.
    @discardableResult
    private func giveUpIfUnreachable(_ error: Error) -> Bool {
        guard let error = error as? StoreReachabilityError, error.meansStoreUnreachable else { return false }
        losing.lock()
        let first = storeLoss == nil
        if first { storeLoss = "\(error)" }
        losing.unlock()
        if first { lostStore?("\(error)") }
        return true
    }

    /// Writes the run's ending to a store that was given up, once it is back: tried until `deadline`, each try
    /// waiting as long as the store does. Returns whether it was written.
    func recordEndingWhenTheStoreIsBack(_ record: RunRecord, until deadline: Date) -> Bool {
        guard let store, lostStoreReason != nil else { return true }
        repeat {
            do {
                // Layers the store saw end keep their recorded times; only those that ended while it was away are
                // written.
                let stored = try store.run(runID)?.record.layers ?? []
                let endedThere = Set(stored.filter { $0.outcome != nil }.map(\.name))
                for layer in record.layers where !endedThere.contains(layer.name) {
                    guard let outcome = layer.outcome else { continue }
                    try store.finishLayer(
                        runID: runID, layer: layer.name, outcome: outcome, evidence: layer.evidence,
                        at: Date())
                }
                try store.updateRun(runID, RunUpdate(runFieldsOf: record))
                return true
            } catch {
                Thread.sleep(forTimeInterval: 1)
            }
        } while Date() < deadline
        return false
    }

    private func reportEventFailure() throws {
        emitting.lock()
        let failure = eventFailure
        eventFailure = nil
        emitting.unlock()
        if let failure { throw failure }
    }
}
