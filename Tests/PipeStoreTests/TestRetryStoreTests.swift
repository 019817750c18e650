import Foundation
import PipeCore
import PipeStore
import XCTest

/// A layer whose second attempt ran only the failed test again: the store keeps each attempt's own runs (for test
/// history) and reads the layer's tests back merged, as the engine kept them.
final class TestRetryStoreTests: StoreTestCase {
    func testAFailedOnlyRetryReadsBackAsTheMergedTestsWithEachAttemptsOwnHistory() throws {
        let store = try openStore()
        let runID = StoreFixtures.runID(20)
        try store.createRun(StoreFixtures.newRun(runID, layers: [("unit", .merge)]), owner: StoreFixtures.owner())
        try store.startLayer(runID: runID, layer: "unit", at: Date())
        let passing = TestCaseResult(identifier: "Suite/testOne()", status: .passed)
        let failing = TestCaseResult(identifier: "Suite/testTwo()", status: .failed, failureMessage: "boom")
        let retried = TestCaseResult(identifier: "Suite/testTwo()", status: .passed)
        for (number, tests, facts) in [
            (1, [passing, failing], [:]), (2, [retried], [LayerResult.testsRetriedFact: "1"]),
        ] {
            var attempt = RunRecord.AttemptRecord(attempt: number, startedAt: "2026-12-04T13:0\(number):00.000Z")
            try store.startAttempt(attempt, runID: runID, layer: "unit")
            try store.recordTestResults(tests, runID: runID, layer: "unit", attempt: number)
            attempt.outcome = number == 1 ? .testsFailed : .passed
            attempt.finishedAt = "2026-12-04T13:0\(number):30.000Z"
            attempt.facts = facts
            try store.finishAttempt(attempt, runID: runID, layer: "unit")
        }
        let layer = try XCTUnwrap(try store.run(runID)?.record.layers.first)
        XCTAssertEqual(layer.tests, [passing, retried], "each test once, its last result")
        let history = try store.testHistory(identifier: "Suite/testTwo()", pipeline: nil, limit: 10)
        XCTAssertEqual(history.map(\.status), [.passed, .failed], "both runs of the retried test stay in its history")
        XCTAssertEqual(
            try store.testHistory(identifier: "Suite/testOne()", pipeline: nil, limit: 10).count, 1,
            "a test the retry did not run is not counted twice")
    }
}
