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
        try store?.updateRun(runID, RunUpdate(runFieldsOf: record))
        try reportEventFailure()
    }

    func attemptStarted(_ record: RunRecord, layer: String, attempt: RunRecord.AttemptRecord) throws {
        try record.write(to: recordURL)
        try store?.startAttempt(attempt, runID: runID, layer: layer)
    }

    func attemptFinished(
        _ record: RunRecord, layer: String, attempt: RunRecord.AttemptRecord, tests: [TestCaseResult]
    ) throws {
        try record.write(to: recordURL)
        try store?.finishAttempt(attempt, runID: runID, layer: layer)
        if !tests.isEmpty {
            try store?.recordTestResults(tests, runID: runID, layer: layer, attempt: attempt.attempt)
        }
        try reportEventFailure()
    }

    func layerFinished(_ record: RunRecord, layer: RunRecord.LayerRecord, at date: Date) throws {
        try record.write(to: recordURL)
        if let outcome = layer.outcome {
            try store?.finishLayer(
                runID: runID, layer: layer.name, outcome: outcome, evidence: layer.evidence, at: date)
        }
        try reportEventFailure()
    }

    /// The run's remote folder is gone from the host: nothing is left for the hosts' clean-up.
    func remoteFolderCleaned(at date: Date) {
        try? store?.markRemoteFolderCleaned(runID: runID, at: date)
    }

    /// A cancellation another process asked for (`pipe runs cancel`), if any.
    func cancellationRequested() -> String? {
        guard let request = try? store?.cancellationRequest(runID: runID) else { return nil }
        return "cancelled by \(request.requestedBy): \(request.reason)"
    }

    /// Stores an event only the store needs (what `pipe hosts clean` reads back), not shown to anyone.
    func record(_ draft: StoredEvent.Draft) throws {
        _ = try store?.appendEvent(draft, runID: runID)
    }

    func emit(_ original: RunEvent) {
        let event = original.redacted(by: redactor)
        emitting.lock()
        defer { emitting.unlock() }
        if let store {
            do {
                try store.appendEvent(
                    StoredEvent.Draft(type: event.typeName, layer: event.layerName, payload: event.jsonPayload),
                    runID: runID)
            } catch {
                if eventFailure == nil { eventFailure = error }
            }
        }
        forward.emit(event)
    }

    private func reportEventFailure() throws {
        emitting.lock()
        let failure = eventFailure
        eventFailure = nil
        emitting.unlock()
        if let failure { throw failure }
    }
}
