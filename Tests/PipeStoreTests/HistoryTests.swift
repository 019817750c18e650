import Foundation
import PipeCore
import PipeStore
import XCTest

/// What history alone tells: a test's recent results and durations, and tests that flip at one commit.
final class HistoryTests: StoreTestCase {
    private func record(
        _ store: SQLiteRunStore, _ offset: Int, pipeline: String = "app-intents", commit: String,
        _ results: [TestCaseResult]
    ) throws -> String {
        let runID = StoreFixtures.runID(offset)
        try store.createRun(
            StoreFixtures.finishedRun(runID, pipeline: pipeline, commit: commit, tests: results),
            owner: StoreFixtures.owner())
        return runID
    }

    private func result(_ status: TestCaseResult.Status, _ seconds: Double, _ id: String = "ReaderTests/testSync()")
        -> TestCaseResult
    {
        TestCaseResult(
            identifier: id, status: status, durationSeconds: seconds,
            failureMessage: status == .failed ? "timed out waiting for sync" : nil)
    }

    func testHistoryListsRecentResultsNewestFirstWithDurations() throws {
        let store = try openStore()
        let first = try record(store, 0, commit: "a1", [result(.passed, 1.5)])
        let second = try record(store, 60, commit: "a2", [result(.failed, 9.75)])
        let third = try record(store, 120, pipeline: "widgets", commit: "a2", [result(.passed, 1.25)])
        _ = try record(store, 180, commit: "a3", [result(.passed, 0.5, "OtherTests/testX()")])

        let history = try store.testHistory(identifier: "ReaderTests/testSync()", pipeline: nil, limit: 10)
        XCTAssertEqual(history.map(\.runID), [third, second, first])
        XCTAssertEqual(history.map(\.status), [.passed, .failed, .passed])
        XCTAssertEqual(history.map(\.durationSeconds), [1.25, 9.75, 1.5])
        XCTAssertEqual(history.map(\.commit), ["a2", "a2", "a1"])
        XCTAssertEqual(history[1].failureMessage, "timed out waiting for sync")
        XCTAssertEqual(history[1].layer, "unit")
        XCTAssertEqual(history[1].at, StoreFixtures.epoch.addingTimeInterval(65), "when its attempt began")

        XCTAssertEqual(
            try store.testHistory(identifier: "ReaderTests/testSync()", pipeline: "app-intents", limit: 10).map(
                \.runID),
            [second, first])
        XCTAssertEqual(
            try store.testHistory(identifier: "ReaderTests/testSync()", pipeline: nil, limit: 1).map(\.runID), [third])
        XCTAssertEqual(try store.testHistory(identifier: "NoSuch/test()", pipeline: nil, limit: 10), [])
    }

    func testFlakyTestsPassedAndFailedAtTheSameCommit() throws {
        let store = try openStore()
        let flip1 = try record(store, 0, commit: "c1", [result(.passed, 1), result(.passed, 1, "StableTests/test()")])
        let flip2 = try record(store, 60, commit: "c1", [result(.failed, 1), result(.passed, 1, "StableTests/test()")])
        let flip3 = try record(store, 120, commit: "c1", [result(.passed, 1)])
        // Passed at one commit and failed at the next: a regression (or a fix), not flakiness.
        _ = try record(store, 180, commit: "c2", [result(.passed, 1, "BrokeTests/test()")])
        _ = try record(store, 240, commit: "c3", [result(.failed, 1, "BrokeTests/test()")])
        // Another pipeline at the same commit is judged apart.
        _ = try record(store, 300, pipeline: "widgets", commit: "c1", [result(.failed, 1, "StableTests/test()")])
        // Skipped results say nothing either way.
        _ = try record(store, 360, commit: "c1", [result(.skipped, 0, "StableTests/test()")])

        let flaky = try store.flakyTests(pipeline: nil, since: nil)
        XCTAssertEqual(flaky.count, 1, "\(flaky)")
        let sync = try XCTUnwrap(flaky.first)
        XCTAssertEqual(sync.pipeline, "app-intents")
        XCTAssertEqual(sync.layer, "unit")
        XCTAssertEqual(sync.identifier, "ReaderTests/testSync()")
        XCTAssertEqual(sync.commit, "c1")
        XCTAssertEqual(sync.passes, 2)
        XCTAssertEqual(sync.failures, 1)
        XCTAssertEqual(sync.runIDs, [flip1, flip2, flip3])
        XCTAssertEqual(sync.lastSeen, StoreFixtures.epoch.addingTimeInterval(125))

        XCTAssertEqual(try store.flakyTests(pipeline: "widgets", since: nil), [])
        XCTAssertEqual(
            try store.flakyTests(pipeline: nil, since: StoreFixtures.epoch.addingTimeInterval(100)), [],
            "only one result at c1 after the date")
    }

    func testAFailureThenAPassOnARetryInOneRunCountsAsFlaky() throws {
        let store = try openStore()
        let runID = StoreFixtures.runID(0)
        try store.createRun(StoreFixtures.newRun(runID, commit: "d1"), owner: StoreFixtures.owner())
        for attempt in 1...2 {
            try store.startAttempt(
                .init(
                    attempt: attempt,
                    startedAt: StoreFixtures.timestamp(StoreFixtures.epoch.addingTimeInterval(Double(attempt)))),
                runID: runID, layer: "unit")
            try store.recordTestResults(
                [result(attempt == 1 ? .failed : .passed, 1)], runID: runID, layer: "unit", attempt: attempt)
        }
        let flaky = try store.flakyTests(pipeline: "app-intents", since: nil)
        XCTAssertEqual(flaky.map(\.identifier), ["ReaderTests/testSync()"])
        XCTAssertEqual(flaky.first?.runIDs, [runID])
        XCTAssertEqual(flaky.first.map { [$0.passes, $0.failures] }, [1, 1])
    }
}
