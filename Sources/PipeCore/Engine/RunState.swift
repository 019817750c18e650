import Foundation

/// The mutable state of one run, with the record that is persisted at every change.
///
/// Layers run on threads of their own, so every change of `record` (or `earlierAttempts`) and the journal write
/// that persists it happen inside `locked`: writes then reach summary.json and the store in the order the changes
/// were made, and a snapshot never misses another layer's change. Events are emitted after the block, so a state
/// change is always written before the event that shows it. The lock is recursive: a locked step may call
/// another.
final class RunState: @unchecked Sendable {
    let runID: String
    let runFolder: URL
    let projectDirectory: URL
    let started: Date
    let flakyPolicy: FlakyPolicy
    let journal: RunJournal
    /// Read and written only inside `locked`.
    var record: RunRecord
    /// Per layer, the tests of attempts before the last one (the record keeps the last attempt's).
    var earlierAttempts: [String: [TestCaseResult]] = [:]
    private let lock = NSRecursiveLock()

    init(
        runID: String, runFolder: URL, projectDirectory: URL, started: Date, flakyPolicy: FlakyPolicy,
        journal: RunJournal, record: RunRecord
    ) {
        self.runID = runID
        self.runFolder = runFolder
        self.projectDirectory = projectDirectory
        self.started = started
        self.flakyPolicy = flakyPolicy
        self.journal = journal
        self.record = record
    }

    var recordURL: URL { journal.recordURL }

    /// Runs `body` while no other thread reads or changes the state.
    func locked<T>(_ body: () throws -> T) rethrows -> T {
        lock.lock()
        defer { lock.unlock() }
        return try body()
    }

    /// The record as it is now.
    var snapshot: RunRecord { locked { record } }
}
