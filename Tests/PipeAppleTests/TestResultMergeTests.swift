import Foundation
import PipeApple
import PipeCore
import XCTest

final class TestResultMergeTests: XCTestCase {
    /// A serial Swift Testing run prints a passing test without its suite; the bundle names it in full.
    func testTheBundleGivesLogTestsTheirSuite() throws {
        let bundle = try XcresultTestResults.decode(try Fixture.data("xcresult/tests-xcode26.1.json")).testCases
        let named = try XCTUnwrap(bundle.first { $0.identifier.hasSuffix("/testArithmetic()") })
        let log = [TestCaseResult(identifier: "testArithmetic()", status: .passed, durationSeconds: 0.01)]
        let merged = TestResultMerge.merge(log: log, bundle: bundle)
        XCTAssertEqual(merged.first?.identifier, named.identifier)
        XCTAssertEqual(merged.first?.durationSeconds, 0.01, "the log's own timing stands")
        XCTAssertEqual(merged.count, bundle.count, "every bundle test once, none twice")
        XCTAssertEqual(Set(merged.map(\.identifier)).count, merged.count)
    }

    func testTheLogsVerdictStandsAndTheBundleFillsTheLocation() {
        let log = [TestCaseResult(identifier: "S/t()", status: .failed, failureMessage: "boom")]
        let bundle = [
            TestCaseResult(identifier: "S/t()", status: .failed, failureMessage: "boom", failureLocation: "S.swift:9"),
            TestCaseResult(identifier: "S/other()", status: .passed),
        ]
        XCTAssertEqual(
            TestResultMerge.merge(log: log, bundle: bundle),
            [
                TestCaseResult(
                    identifier: "S/t()", status: .failed, failureMessage: "boom", failureLocation: "S.swift:9"),
                TestCaseResult(identifier: "S/other()", status: .passed),
            ])
    }

    /// Two suites share `t()`: the log's `t()` could be either, so it keeps its name and neither is added, and the
    /// count stays the log's.
    func testAnAmbiguousShortNameIsLeftAsTheLogPrintedItAndTheCountStays() {
        let bundle = [
            TestCaseResult(identifier: "A/t()", status: .passed), TestCaseResult(identifier: "B/t()", status: .failed),
            TestCaseResult(identifier: "B/u()", status: .passed),
        ]
        let log = [
            TestCaseResult(identifier: "t()", status: .passed), TestCaseResult(identifier: "B/u()", status: .passed),
        ]
        let merged = TestResultMerge.merge(log: log, bundle: bundle)
        XCTAssertEqual(merged.map(\.identifier), ["t()", "B/u()"])
        XCTAssertEqual(merged.filter { $0.status == .failed }.count, 0, "the log's verdicts and counts stand")
    }
}
