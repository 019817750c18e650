import Foundation
import PipeApple
import XCTest

final class XcresultTestRunsTests: XCTestCase {
    func testEachCaseKeepsItsRepetitions() throws {
        let results = try XcresultTestResults.decode(try Fixture.data("report/tests-xcode26.1/tests.json"))
        let runs = results.testCaseRuns
        XCTAssertEqual(runs.map(\.result), results.testCases)
        XCTAssertEqual(runs.map { $0.runs.map(\.status) }, [[.passed, .passed], [.failed, .failed], [.skipped]])
        XCTAssertEqual(
            runs[1].runs.last?.failureMessage, #"Caught error: TestError(message: "Database not available")"#)
        XCTAssertEqual(runs[1].runs.last?.failureLocation, "FastlaneTrainerExampleTests.swift:307")
        XCTAssertFalse(runs.contains(where: \.isFlaky))
    }

    func testAFailedRunThenAPassIsFlaky() throws {
        let results = try XcresultTestResults.decode(try Fixture.data("report/tests-flaky-retry-passed/tests.json"))
        let flaky = results.testCaseRuns.filter(\.isFlaky).map(\.result.identifier)
        XCTAssertEqual(flaky, ["FastlaneTrainerTests/SkipTests/ResourceTests/testWithDatabaseCleanup()"])
    }
}
