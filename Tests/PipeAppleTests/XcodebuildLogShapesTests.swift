import Foundation
import PipeApple
import PipeCore
import XCTest

/// Older and newer shapes of a log (issue 18 §7).
final class XcodebuildLogShapesTests: XCTestCase {
    private func classify(_ log: String, _ exit: RemoteExit = .exited(0)) -> XcodebuildVerdict {
        XcodebuildOutcomeClassifier.classify(exit: exit, log: XcodebuildLogParser.parse(Data(log.utf8)).facts)
    }

    private let passing = "Test Case '-[M.C testB]' started.\nTest Case '-[M.C testB]' passed (0.001 seconds).\n"
    private let failing =
        "Test Case '-[M.C testA]' started.\n/p/C.swift:3: error: -[M.C testA] : XCTAssertTrue failed\n"
        + "Test Case '-[M.C testA]' failed (0.010 seconds).\n"

    /// Xcode 7–10 could print the banner before the test output.
    func testABannerBeforeTheTestOutput() {
        XCTAssertEqual(classify("** TEST SUCCEEDED **\n\n" + passing).outcome, .passed)
        XCTAssertEqual(classify("** TEST SUCCEEDED **\n\n" + passing + failing).outcome, .testsFailed)
    }

    func testABuildThenATestBackToBack() {
        let log =
            "Command line invocation:\n    /usr/bin/xcodebuild -scheme S build\n\n** BUILD SUCCEEDED **\n\n"
            + "Command line invocation:\n    /usr/bin/xcodebuild -scheme S test\n\n" + passing
        XCTAssertEqual(classify(log).outcome, .infrastructure, "the test run has no banner yet")
        XCTAssertEqual(classify(log + "** TEST SUCCEEDED **\n").outcome, .passed)
        XCTAssertEqual(classify(log + failing + "** TEST FAILED **\n", .exited(65)).outcome, .testsFailed)
    }

    func testAnIssueWhoseTestNeverEndedIsAFailure() {
        let log =
            "\u{100884}  Test secondExample() recorded an issue at T.swift:11:5: Expectation failed: true == false\n"
        let facts = XcodebuildLogParser.parse(Data(log.utf8)).facts
        XCTAssertEqual(facts.failedTests.items.map(\.identifier), ["secondExample()"])
        let assertion = XcodebuildLogParser.parse(Data("/p/C.swift:3: error: -[M.C testA] : boom\n".utf8)).facts
        XCTAssertEqual(assertion.failedTests.items.map(\.failureMessage), ["boom"])
        let skipReason = XcodebuildLogParser.parse(Data("/p/C.swift:3: -[M.C testA] : Test skipped - later\n".utf8))
        XCTAssertEqual(skipReason.facts.failedCount, 0, "a skip reason alone fails nothing")
    }

    func testNamesAreTheBundlesWhicheverLineNamedThem() {
        XCTAssertEqual(
            TestIdentifier.normalize("-[RACTupleSpec RACTuple_should_be_equal]"),
            "RACTupleSpec/RACTuple_should_be_equal")
        XCTAssertEqual(
            TestIdentifier.normalize("-[ReaderTests.ReadingIDTests testEmpty]"), "ReadingIDTests/testEmpty()")
        XCTAssertEqual(TestIdentifier.normalize("ReadingIDTests.testEmpty()"), "ReadingIDTests/testEmpty()")
    }
}
