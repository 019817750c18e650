import Foundation
import PipeCore
import PipeStore
import XCTest

/// Pruning removes exactly the runs asked for, with all their rows, never a run in progress.
final class PruneTests: StoreTestCase {
    /// Runs at hours 0…7: ended ones, and two in progress (hours 1 and 5), each with an artifact, tests, an event,
    /// a sign-off; pipelines alternate.
    private func populate(_ store: SQLiteRunStore) throws -> [String] {
        var ids: [String] = []
        for hour in 0..<8 {
            let runID = StoreFixtures.runID(3600 * hour)
            ids.append(runID)
            let pipeline = hour % 2 == 0 ? "app-intents" : "widgets"
            let artifact = ArtifactRecord(kind: .log, path: "artifacts/\(runID)/unit/log", bytes: Int64(1000 + hour))
            var record = StoreFixtures.finishedRun(
                runID, pipeline: pipeline, status: hour == 6 ? .interrupted : .finished,
                tests: [TestCaseResult(identifier: "T/test\(hour)()", status: .passed)], artifacts: [artifact])
            if hour == 1 || hour == 5 {
                record.status = .running
                record.finishedAt = nil
            }
            record.remoteRunFolder = "pipe-work/runs/\(runID)"
            try store.createRun(record, owner: StoreFixtures.owner())
            try store.appendEvent(.init(type: "run-started"), runID: runID)
            try store.appendSignoff(SignoffRequest(runID: runID, layer: "unit", decision: .signedOff, signedBy: "x"))
            if hour != 6 { try store.markRemoteFolderCleaned(runID: runID, at: Date()) }
        }
        return ids
    }

    func testKeepLatestKeepsTheNewestEndedRunsAndEveryRunInProgress() throws {
        let store = try openStore()
        let ids = try populate(store)
        let report = try store.prune(PrunePolicy(keepLatest: 3))
        // Ended, newest first: 7, 6, 4, 3, 2, 0 → keep 7, 6, 4; remove 3, 2, 0 (oldest first). 1 and 5 run.
        XCTAssertEqual(report.removed.map(\.runID), [ids[0], ids[2], ids[3]])
        XCTAssertFalse(report.dryRun)
        XCTAssertEqual(
            Set(try store.listRuns(RunFilter()).map(\.runID)), Set([ids[1], ids[4], ids[5], ids[6], ids[7]]))
        XCTAssertEqual(
            report.removed.flatMap { $0.artifacts.map(\.path) },
            [0, 2, 3].map { "artifacts/\(ids[$0])/unit/log" })
        XCTAssertEqual(report.artifactBytes, 1000 + 1002 + 1003)
        try assertNoRowsLeft(of: report.removed.map(\.runID))
    }

    func testOlderThanRemovesOnlyEndedRunsStartedBeforeTheDate() throws {
        let store = try openStore()
        let ids = try populate(store)
        let report = try store.prune(PrunePolicy(olderThan: StoreFixtures.epoch.addingTimeInterval(3600 * 6)))
        XCTAssertEqual(report.removed.map(\.runID), [ids[0], ids[2], ids[3], ids[4]])
        XCTAssertEqual(try store.listRuns(RunFilter()).map(\.runID), [ids[7], ids[6], ids[5], ids[1]])
        try assertNoRowsLeft(of: report.removed.map(\.runID))
    }

    func testBothLimitsRemoveOnlyWhatBothAllowAndPipelineNarrows() throws {
        let store = try openStore()
        let ids = try populate(store)
        // app-intents ended runs: 0, 2, 4, 6; keep the newest 1 (6) and only those before hour 3: 0 and 2.
        let report = try store.prune(
            PrunePolicy(
                keepLatest: 1, olderThan: StoreFixtures.epoch.addingTimeInterval(3600 * 3), pipeline: "app-intents"))
        XCTAssertEqual(report.removed.map(\.runID), [ids[0], ids[2]])
        XCTAssertEqual(report.removed.map(\.pipeline), ["app-intents", "app-intents"])
        XCTAssertEqual(try store.listRuns(RunFilter()).count, 6)
    }

    func testDryRunReportsWithoutRemoving() throws {
        let store = try openStore()
        let ids = try populate(store)
        let report = try store.prune(PrunePolicy(keepLatest: 0, dryRun: true))
        XCTAssertTrue(report.dryRun)
        XCTAssertEqual(report.removed.map(\.runID), [ids[0], ids[2], ids[3], ids[4], ids[6], ids[7]])
        XCTAssertEqual(try store.listRuns(RunFilter()).count, 8)
    }

    func testKeepZeroNeverRemovesARunInProgressAndReportsUncleanedRemoteFolders() throws {
        let store = try openStore()
        let ids = try populate(store)
        let report = try store.prune(PrunePolicy(keepLatest: 0))
        XCTAssertEqual(try store.listRuns(RunFilter()).map(\.runID), [ids[5], ids[1]])
        XCTAssertEqual(try store.listRuns(RunFilter()).map(\.status), [.running, .running])
        // The interrupted run's remote folder was never cleaned: the hosts' clean-up still needs it.
        XCTAssertEqual(
            report.removed.compactMap(\.uncleanedRemoteFolder),
            [
                RemoteCleanup(
                    runID: ids[6], hostName: nil, remoteRunFolder: "pipe-work/runs/\(ids[6])", status: .interrupted)
            ])
        try assertNoRowsLeft(of: report.removed.map(\.runID))
        // What remains is whole.
        XCTAssertEqual(try store.run(ids[1])?.record.layers[0].tests.count, 1)
        XCTAssertEqual(try store.signoffs(runID: ids[5]).count, 1)
    }

    func testLargePrunesGoInSeveralShortTransactions() throws {
        let store = try openStore()
        let count = SQLiteRunStore.pruneBatchSize * 2 + 7
        for index in 0..<count {
            try store.createRun(StoreFixtures.finishedRun(StoreFixtures.runID(index)), owner: StoreFixtures.owner())
        }
        let report = try store.prune(PrunePolicy(keepLatest: 5))
        XCTAssertEqual(report.removed.count, count - 5)
        XCTAssertEqual(try store.listRuns(RunFilter()).count, 5)
        XCTAssertEqual(report.removed.map(\.runID), report.removed.map(\.runID).sorted(), "oldest first")
    }

    func testPruneWithoutALimitIsRefused() throws {
        let store = try openStore()
        XCTAssertThrowsError(try store.prune(PrunePolicy())) {
            guard case .invalidInput(let message)? = $0 as? StoreError else { return XCTFail("\($0)") }
            XCTAssertTrue(message.contains("--keep") && message.contains("--older"), message)
        }
        XCTAssertThrowsError(try store.prune(PrunePolicy(keepLatest: -1)))
    }

    /// No table holds a row of the removed runs: the foreign keys cascaded.
    private func assertNoRowsLeft(of runIDs: [String], file: StaticString = #filePath, line: UInt = #line) throws {
        let raw = try rawDatabase()
        let list = runIDs.map { "'\($0)'" }.joined(separator: ",")
        for table in ["runs"] {
            XCTAssertEqual(try count(table, raw, where: "id IN (\(list))"), 0, table, file: file, line: line)
        }
        for table in ["layers", "artifacts", "events", "signoffs"] {
            XCTAssertEqual(try count(table, raw, where: "run_id IN (\(list))"), 0, table, file: file, line: line)
        }
        XCTAssertEqual(
            try count("attempts", raw, where: "layer_id NOT IN (SELECT id FROM layers)"), 0, file: file, line: line)
        XCTAssertEqual(
            try count("test_results", raw, where: "attempt_id NOT IN (SELECT id FROM attempts)"), 0, file: file,
            line: line)
        XCTAssertEqual(try raw.first("PRAGMA foreign_key_check") { $0.text(0) }, nil, file: file, line: line)
    }
}
