import Foundation
import PipeApple
import PipeCore
import XCTest

/// A test runner or simulator that failed is the machine's failure, not the app's (issue 18 §2). Lines are those of
/// `apple-formats.md` Part 2 §6 (bitrise steps-xcode-test samples, MIT; fastlane's fixture, MIT).
final class TestRunnerFailureTests: XCTestCase {
    private func classify(_ log: String, _ exit: RemoteExit = .exited(65)) -> XcodebuildVerdict {
        XcodebuildOutcomeClassifier.classify(exit: exit, log: XcodebuildLogParser.parse(Data(log.utf8)).facts)
    }

    static let earlyExit = """
        2016-09-23 02:11:05.516 xcodebuild[1317:5775] Error Domain=IDETestOperationsObserverErrorDomain Code=5 "Early unexpected exit, operation never finished bootstrapping - no restart will be attempted" UserInfo={NSLocalizedDescription=Early unexpected exit, operation never finished bootstrapping - no restart will be attempted}

        Testing failed:
        \tTest target ios-xcode-8.0Tests encountered an error (Early unexpected exit, operation never finished bootstrapping - no restart will be attempted)
        ** TEST FAILED **

        """

    func testEarlyUnexpectedExitIsInfrastructure() {
        let verdict = classify(Self.earlyExit)
        XCTAssertEqual(verdict.outcome, .infrastructure)
        XCTAssertTrue(verdict.evidence[0].hasPrefix("the test runner failed, not the app under test: "))
        XCTAssertTrue(verdict.evidence[0].contains("Early unexpected exit"), "\(verdict.evidence)")
    }

    func testEachKnownRunnerFailureIsInfrastructure() {
        let lines = [
            "2016-09-26 01:14:08.896 xcodebuild[1299:5953] Error Domain=IDETestOperationsObserverErrorDomain Code=12 "
                + "\"Failed to background test runner. If you believe this error represents a bug, please attach the "
                + "log file at /Users/vagrant/Session.log\" UserInfo={}",
            "2017-03-31 13:36:22.357 xcodebuild[1398:8966] Error Domain=IDETestOperationsObserverErrorDomain Code=13 "
                + "\"Test runner failed to initialize for UI testing but did not provide any additional details.\"",
            "2017-04-04 16:07:47.045 xcodebuild[1431:9184] Error Domain=IDETestOperationsObserverErrorDomain Code=13 "
                + "\"Timed out registering for testing event accessibility notifications.\"",
            "Testing failed:\n\tMyAppUITests-Runner (1234) encountered an error (Test runner never began executing "
                + "tests after launching.  If you believe this error represents a bug, please attach the result bundle)",
            "xxxxxxxxxxxxx iPhoneSimulator: Timed out waiting 120 seconds for simulator to boot, current state is 1.",
            "NSLocalizedFailureReason=The request was denied by service delegate (SBMainWorkspace) for reason: "
                + "NotFound (\"Application \"io.bitrise.ios-xcode-8-0\" is unknown to FrontBoard\").",
            "NSUnderlyingError=0x7fb8160bea40 {Error Domain=SBWorkspaceTransaction Code=1 \"Launch failed\" "
                + "UserInfo={SBTransaction=SBSuspendedWorkspaceTransaction, NSLocalizedFailureReason=Launch failed}}",
            "An error was encountered processing the command (domain=com.apple.CoreSimulator.SimError, code=405):",
            "simctl error running 'boot': [simctl] Unable to boot device in current state: Booted",
        ]
        for line in lines {
            let verdict = classify(line + "\n\n** TEST FAILED **\n")
            XCTAssertEqual(verdict.outcome, .infrastructure, line)
        }
    }

    func testALaunchFailureReportedAsATestFailureIsTheRunners() {
        let log = """
            Test Case '-[ios_xcode_8_0UITests.ios_xcode_8_0UITests testExample]' started.
                t =    46.77s             Assertion Failure: <unknown>:0: UI Testing Failure - Failure attempting to launch <XCUIApplicationImpl: 0x608000423da0 io.bitrise.ios-xcode-8-0 at /Users/vagrant/ios-xcode-8.0.app>: Error Domain=FBSOpenApplicationServiceErrorDomain Code=1 "The request to open "io.bitrise.ios-xcode-8-0" failed."
            /Users/vagrant/ios-xcode-8.0UITests.swift:0: error: -[ios_xcode_8_0UITests.ios_xcode_8_0UITests testExample] : UI Testing Failure - Failure attempting to launch <XCUIApplicationImpl: 0x608000423da0 io.bitrise.ios-xcode-8-0>
            Test Case '-[ios_xcode_8_0UITests.ios_xcode_8_0UITests testExample]' failed (46.9 seconds).
            ** TEST FAILED **

            """
        XCTAssertEqual(classify(log).outcome, .infrastructure)
    }

    func testRealFailuresBesideARunnerFailureAreTheApps() {
        let log =
            "Test Case '-[M.C testA]' started.\n/p/C.swift:3: error: -[M.C testA] : XCTAssertEqual failed\n"
            + "Test Case '-[M.C testA]' failed (0.010 seconds).\n" + Self.earlyExit
        let verdict = classify(log)
        XCTAssertEqual(verdict.outcome, .testsFailed)
        XCTAssertTrue(verdict.evidence.contains { $0.hasPrefix("also a test-runner failure: ") }, "\(verdict.evidence)")
    }

    func testACrashInsideAStartedTestIsTheApps() {
        let log =
            "Test Case '-[M.C testA]' started.\n"
            + "Restarting after unexpected exit, crash, or test timeout in C.testA(); summary will include totals from "
            + "previous launches.\n" + Self.earlyExit
        XCTAssertEqual(classify(log).outcome, .testsFailed)
    }

    func testKilledAfterOnlyARunnerFailureIsInfrastructure() {
        XCTAssertEqual(classify(Self.earlyExit, .signaled("KILL")).outcome, .infrastructure)
    }
}
