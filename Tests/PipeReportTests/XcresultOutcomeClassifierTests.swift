import Foundation
import PipeApple
import PipeCore
import XCTest

/// Bundle-only classification (no log): each rule of `XcresultOutcomeClassifier`, first match wins.
final class XcresultOutcomeClassifierTests: XCTestCase {
    private func summary(_ case: String) throws -> XcresultSummary {
        try XcresultSummary.decode(try Fixture.data("report/\(`case`)/summary.json"))
    }

    private func legacy(_ name: String) throws -> XcresultLegacyInvocationRecord {
        guard
            case .invocationRecord(let record) = try XcresultLegacyDocument.read(
                try Fixture.json("xcresult-legacy/\(name)"))
        else { throw XcresultLegacyError.notLegacyJSON(detail: name) }
        return record
    }

    private func classify(
        _ exit: Int32?, summary: XcresultSummary? = nil, tests: [TestCaseResult] = [],
        legacy: XcresultLegacyInvocationRecord? = nil
    ) -> LayerOutcome {
        XcresultOutcomeClassifier.classify(exitCode: exit, summary: summary, tests: tests, legacy: legacy).outcome
    }

    func testHostSetupIssuesWinOverEverything() throws {
        let destination = try legacy("root-destination-failure.json")
        XCTAssertEqual(classify(65, legacy: destination), .hostConfig)
        XCTAssertEqual(classify(nil, legacy: destination), .hostConfig)
        let verdict = XcresultOutcomeClassifier.classify(exitCode: 70, summary: nil, tests: [], legacy: destination)
        XCTAssertEqual(verdict.evidence.first, "no destination matches the chosen simulator")
        XCTAssertTrue(
            verdict.evidence.contains("Unable to find a destination matching the provided destination specifier:"))
    }

    func testABuildFailureIsTheApps() throws {
        XCTAssertEqual(classify(65, legacy: try legacy("root-build-failure.json")), .buildFailed)
    }

    func testFailedTestsFromAnySource() throws {
        XCTAssertEqual(classify(nil, summary: try summary("summary-failed")), .testsFailed)
        XCTAssertEqual(classify(0, tests: [TestCaseResult(identifier: "A/b()", status: .failed)]), .testsFailed)
        XCTAssertEqual(classify(nil, legacy: try legacy("root-test-failure-xcode15.3.json")), .testsFailed)
    }

    func testExitCodesWithoutFailuresInTheBundle() throws {
        let passed = try summary("summary-passed-xcode26.3")
        XCTAssertEqual(classify(137, summary: passed), .infrastructure)
        XCTAssertEqual(classify(64, summary: passed), .hostConfig)
        XCTAssertEqual(classify(66, summary: passed), .hostConfig)
        XCTAssertEqual(classify(70, summary: passed), .hostConfig)
        XCTAssertEqual(classify(65, summary: passed), .infrastructure, "a failing exit the bundle does not explain")
    }

    func testPassingNeedsTestsThatRan() throws {
        XCTAssertEqual(classify(0, summary: try summary("summary-passed-xcode26.3")), .passed)
        XCTAssertEqual(classify(nil, summary: try summary("summary-passed-xcode26.3")), .passed)
        XCTAssertEqual(classify(0, summary: try summary("summary-zero-tests")), .hostConfig)
        XCTAssertEqual(classify(nil), .infrastructure, "nothing says the tests passed")
        XCTAssertEqual(classify(nil, tests: [TestCaseResult(identifier: "A/b()", status: .passed)]), .passed)
    }
}
