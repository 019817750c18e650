import Foundation
import PipeApple
import PipeCore
import XCTest

/// Colours and other control sequences are removed before a line or a JSON text field is read.
final class ControlSequencesTests: XCTestCase {
    private let escape = "\u{1B}"

    func testAColouredBannerIsTheBanner() {
        let log = "Test Suite 'All tests' passed.\n\(escape)[1m** TEST SUCCEEDED **\(escape)[0m [1.5 sec]\n"
        let facts = XcodebuildLogParser.parse(Data(log.utf8)).facts
        XCTAssertEqual(facts.banner?.line, "** TEST SUCCEEDED ** [1.5 sec]")
        XCTAssertEqual(XcodebuildOutcomeClassifier.classify(exit: .exited(0), log: facts).outcome, .passed)
    }

    func testColouredTestLinesAndErrorsAreRead() {
        let log =
            "\(escape)[32mTest Case '-[M.C testA]' started.\(escape)[0m\n"
            + "\(escape)[31m/p/C.swift:3: error: -[M.C testA] : XCTAssertTrue failed\(escape)[0m\n"
            + "\(escape)[31mTest Case '-[M.C testA]' failed (0.010 seconds).\(escape)[0m\n"
            + "\(escape)]0;title\u{07}\(escape)[1;31m** TEST FAILED **\(escape)[0m\n"
        let facts = XcodebuildLogParser.parse(Data(log.utf8)).facts
        XCTAssertEqual(facts.failedTests.items.map(\.identifier), ["C/testA()"])
        XCTAssertEqual(facts.failedTests.items.first?.failureMessage, "XCTAssertTrue failed")
        XCTAssertEqual(facts.banner?.line, "** TEST FAILED **")
    }

    func testStripKeepsTabsAndText() {
        XCTAssertEqual(ControlSequences.strip("\tA\(escape)[0;1mB\(escape)(BC\u{07}\u{08}"), "\tABC")
        XCTAssertEqual(ControlSequences.strip("plain ✔"), "plain ✔")
    }

    func testJSONTextFieldsAreStripped() throws {
        let json = """
            {"title":"T","result":"Failed","totalTestCount":1,"passedTests":0,"failedTests":1,"skippedTests":0,
             "expectedFailures":0,"statistics":[],"devicesAndConfigurations":[],"topInsights":[],
             "testFailures":[{"testName":"\\u001b[31mtestA()\\u001b[0m","targetName":"T",
             "failureText":"\\u001b[1mXCTAssertTrue failed\\u001b[0m","testIdentifier":1,
             "testIdentifierString":"C/testA()"}]}
            """
        let summary = try XcresultSummary.decode(Data(json.utf8))
        XCTAssertEqual(summary.testFailures.first?.testName, "testA()")
        XCTAssertEqual(summary.testFailures.first?.failureText, "XCTAssertTrue failed")
    }
}
