import Foundation
import PipeApple
import PipeCore
import XCTest

/// Only a success banner of the action asked for makes a layer pass, and a failed test never passes (issue 18 §1).
final class XcodebuildRequestedActionTests: XCTestCase {
    private func facts(_ text: String) -> XcodebuildLogFacts {
        XcodebuildLogParser.parse(Data(text.utf8)).facts
    }

    /// An OCUnit-era `clean test` log: the clean step's banner, a failed case, no banner after the tests.
    static let cleanTestLog = """
        Command line invocation:
            /Applications/Xcode.app/Contents/Developer/usr/bin/xcodebuild -workspace "Reactive Cocoa.xcworkspace" -scheme ReactiveCocoa clean test

        ** CLEAN SUCCEEDED **

        Test Suite 'All tests' started at 2014-01-02 10:00:00 +0000
        Test Suite 'ReactiveCocoaTests.octest(Tests)' started at 2014-01-02 10:00:00 +0000
        Test Suite 'RACTupleSpec' started at 2014-01-02 10:00:00 +0000
        Test Case '-[RACTupleSpec RACTuple_should_have_a_description]' started.
        /Users/ci/ReactiveCocoaTests/RACTupleSpec.m:28: error: -[RACTupleSpec RACTuple_should_have_a_description] : expected: foobar, got: seoitns
        Test Case '-[RACTupleSpec RACTuple_should_have_a_description]' failed (0.000 seconds).
        Test Case '-[RACTupleSpec RACTuple_should_be_equal]' started.
        Test Case '-[RACTupleSpec RACTuple_should_be_equal]' passed (0.001 seconds).
        Test Suite 'RACTupleSpec' finished at 2014-01-02 10:00:01 +0000.
        Executed 2 tests, with 1 failure (0 unexpected) in 0.001 (0.001) seconds
        Test Suite 'ReactiveCocoaTests.octest(Tests)' finished at 2014-01-02 10:00:01 +0000.
        Executed 922 tests, with 1 failure (0 unexpected) in 23.744 (24.143) seconds
        Test Suite 'All tests' finished at 2014-01-02 10:00:01 +0000.
        Executed 922 tests, with 1 failure (0 unexpected) in 23.744 (24.143) seconds

        """

    func testTheInvocationNamesTheActions() {
        XCTAssertEqual(
            XcodebuildRequestedAction.actions(
                inInvocation:
                    "/x/xcodebuild -scheme test -destination \"platform=iOS Simulator,name=A test\" clean test"),
            ["clean", "test"])
        XCTAssertEqual(
            XcodebuildRequestedAction.actions(inInvocation: "xcodebuild -quiet build CODE_SIGNING_ALLOWED=NO"),
            ["build"])
        XCTAssertEqual(XcodebuildRequestedAction.deciding(["clean", "test"]).bannerActions, ["TEST"])
        XCTAssertEqual(XcodebuildRequestedAction.deciding([]), .assumedTest)
        XCTAssertEqual(facts(Self.cleanTestLog).requestedAction.name, "test")
    }

    func testACleanBannerNeverPasses() {
        let log = facts(Self.cleanTestLog)
        XCTAssertNil(log.successBanner)
        XCTAssertNil(XcodebuildAssumedExit.from(log), "only the clean step's banner: no verdict for the tests")
        let verdict = XcodebuildOutcomeClassifier.classify(exit: .exited(0), log: log)
        XCTAssertEqual(verdict.outcome, .testsFailed)
        XCTAssertTrue(
            verdict.evidence.contains { $0.contains("RACTupleSpec/RACTuple_should_have_a_description failed") })
        let withoutFailure = facts(
            "Command line invocation:\n    /usr/bin/xcodebuild -scheme S clean test\n** CLEAN SUCCEEDED **\n")
        XCTAssertEqual(
            XcodebuildOutcomeClassifier.classify(exit: .exited(0), log: withoutFailure).outcome, .infrastructure)
        XCTAssertEqual(
            XcodebuildOutcomeClassifier.classify(exit: .exited(0), log: facts("** BUILD SUCCEEDED **\n")).outcome,
            .infrastructure)
    }

    func testABuildBannerPassesABuild() {
        let log = facts("Command line invocation:\n    /usr/bin/xcodebuild -scheme S build\n** BUILD SUCCEEDED **\n")
        XCTAssertEqual(XcodebuildOutcomeClassifier.classify(exit: .exited(0), log: log).outcome, .passed)
    }

    func testAFailureBannerOfAnyRunFails() {
        let log = facts("** TEST FAILED **\n\n** TEST SUCCEEDED **\n")
        XCTAssertEqual(XcodebuildAssumedExit.from(log)?.code, 65)
        XCTAssertNotEqual(XcodebuildOutcomeClassifier.classify(exit: .exited(0), log: log).outcome, .passed)
    }

    func testAFailedTestUnderASuccessBannerIsAFailure() {
        let failed = """
            Test Case '-[M.C testA]' started.
            /p/C.swift:3: error: -[M.C testA] : XCTAssertTrue failed
            Test Case '-[M.C testA]' failed (0.010 seconds).
            ** TEST SUCCEEDED **

            """
        XCTAssertEqual(XcodebuildOutcomeClassifier.classify(exit: .exited(0), log: facts(failed)).outcome, .testsFailed)
        let retriedAndPassed = failed.replacingOccurrences(
            of: "** TEST SUCCEEDED **", with: "Test Case '-[M.C testA]' passed (0.010 seconds).\n** TEST SUCCEEDED **")
        let log = facts(retriedAndPassed)
        XCTAssertEqual(log.stillFailingCount, 0)
        XCTAssertEqual(XcodebuildOutcomeClassifier.classify(exit: .exited(0), log: log).outcome, .passed)
    }

    func testTheOutermostTotalsOfEachRunAreCheckedAgainstTheCount() {
        let log = facts(Self.cleanTestLog)
        XCTAssertEqual(log.statedTotals.items.map(\.executed), [922])
        XCTAssertEqual(log.statedFailures, 1)
        XCTAssertEqual(
            log.totalsDisagreement,
            "the log's totals (`Executed …`) say 922 tests ran with 1 failures; its test lines show 2 tests, 1 failed")
        let verdict = XcodebuildOutcomeClassifier.classify(exit: .exited(65), log: log)
        XCTAssertEqual(verdict.evidence.last, log.totalsDisagreement)

        let twoRuns = Self.cleanTestLog + Self.cleanTestLog
        XCTAssertEqual(facts(twoRuns).statedTotals.items.map(\.executed), [922, 922])
    }

    func testTotalsThatAgreeAreNotMentioned() {
        let log = facts(
            """
            Test Suite 'All tests' started at 2024-01-01 10:00:00.000.
            Test Case '-[M.C testA]' started.
            Test Case '-[M.C testA]' passed (0.010 seconds).
            Test Suite 'All tests' passed at 2024-01-01 10:00:00.010.
            \t Executed 1 test, with 0 failures (0 unexpected) in 0.010 (0.010) seconds
            ** TEST SUCCEEDED **

            """)
        XCTAssertEqual(log.statedExecuted, 1)
        XCTAssertNil(log.totalsDisagreement)
    }

    func testTotalsAloneCanShowAFailure() {
        let log = facts(
            "Test Suite 'All tests' started at x\nTest Suite 'All tests' failed at y\n"
                + "Executed 3 tests, with 1 test skipped and 2 failures (0 unexpected) in 0.1 (0.1) seconds\n"
                + "** TEST SUCCEEDED **\n")
        XCTAssertEqual(log.statedFailures, 2)
        XCTAssertTrue(log.hasFailedTests)
        XCTAssertEqual(XcodebuildOutcomeClassifier.classify(exit: .exited(0), log: log).outcome, .testsFailed)
    }
}
