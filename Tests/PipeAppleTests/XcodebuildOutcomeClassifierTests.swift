import Foundation
import PipeApple
import PipeCore
import XCTest

final class XcodebuildOutcomeClassifierTests: XCTestCase {
    private func facts(_ fixture: String) throws -> XcodebuildLogFacts {
        XcodebuildLogParser.parse(try Fixture.data("xcodebuild/\(fixture)")).facts
    }

    private func facts(text: String) -> XcodebuildLogFacts {
        XcodebuildLogParser.parse(Data(text.utf8)).facts
    }

    private func summary(_ fixture: String) throws -> XcresultSummary {
        try XcresultSummary.decode(try Fixture.data("xcresult/\(fixture)"))
    }

    private func classify(_ fixture: String, _ exit: RemoteExit, summary: XcresultSummary? = nil) throws
        -> XcodebuildVerdict
    {
        XcodebuildOutcomeClassifier.classify(exit: exit, log: try facts(fixture), summary: summary)
    }

    func testExitZeroWithTheSucceededBannerPasses() throws {
        let verdict = try classify(
            "test-succeeded.log", .exited(0), summary: try summary("summary-passed-xcode26.3.json"))
        XCTAssertEqual(verdict.outcome, .passed)
        XCTAssertEqual(
            verdict.evidence,
            [
                "exit 0", "** TEST SUCCEEDED ** [90.593 sec]",
                "1 passed, 0 failed, 0 skipped in the log; bundle: 406 passed, 0 failed of 406",
                // The fixture is an excerpt: the log's own totals name tests whose lines were cut out.
                "the log's totals (`Executed …` over 2 runs) say 28 tests ran with 0 failures; "
                    + "its test lines show 1 tests, 0 failed",
            ])
    }

    func testZeroTestsIsNotAPass() throws {
        let verdict = try classify("test-succeeded.log", .exited(0), summary: try summary("summary-zero-tests.json"))
        XCTAssertEqual(verdict.outcome, .hostConfig)
        XCTAssertTrue(verdict.evidence[0].contains("no test ran"), "\(verdict.evidence)")
    }

    func testExitZeroWithoutABannerIsNeverSuccess() throws {
        let passedOnly = facts(
            text: "Test Case '-[M.C testA]' started.\nTest Case '-[M.C testA]' passed (0.1 seconds).\n")
        let verdict = XcodebuildOutcomeClassifier.classify(exit: .exited(0), log: passedOnly)
        XCTAssertEqual(verdict.outcome, .infrastructure)
        XCTAssertTrue(verdict.evidence.contains("no ** … ** banner in the log"))
        // Its failed tests are failures whatever the exit code says.
        XCTAssertEqual(try classify("parallel-xctest.log", .exited(0)).outcome, .testsFailed)
    }

    func testFailingTestsAreTestsFailedWithTheirMessages() throws {
        let verdict = try classify("test-failed-xcode15.log", .exited(65))
        XCTAssertEqual(verdict.outcome, .testsFailed)
        XCTAssertEqual(verdict.evidence[0], "exit 65")
        XCTAssertTrue(verdict.evidence.contains("** TEST FAILED **"))
        XCTAssertTrue(
            verdict.evidence.contains(
                "Failing tests: ConfirmPhoneNumberViewModelTests/testOnLoadAsync_ShouldSetMaskedPhoneNumber_WhenDataIsFetched(), "
                    + "ConfirmFullNameViewModelTests/testOnLoadAsync_ShouldSetError_WhenDataFetchFailed()"),
            "\(verdict.evidence)")
        XCTAssertTrue(
            verdict.evidence.contains(
                "EventCodeConfirmViewModelTests/testEvent_ShouldValidateEventAndSetCorrectStatus_WhenFourDigitsAreProvided() "
                    + "failed at EventCodeConfirmViewModelTests.swift:71: XCTAssertTrue failed"), "\(verdict.evidence)")
    }

    func testFailuresKnownOnlyFromTheBundle() throws {
        let verdict = XcodebuildOutcomeClassifier.classify(
            exit: .exited(65), log: facts(text: "** TEST FAILED **\n"), summary: try summary("summary-failed.json"))
        XCTAssertEqual(verdict.outcome, .testsFailed)
        XCTAssertTrue(
            verdict.evidence.contains(
                "bundle: CounterPersistenceTests/testCountSurvivesStoreRecreation(): XCTAssertEqual failed: (\"0\") is not equal to (\"3\")"
            ))
    }

    func testBuildFailureDuringTest() throws {
        let verdict = try classify("build-failed-during-test.log", .exited(65))
        XCTAssertEqual(verdict.outcome, .buildFailed)
        XCTAssertTrue(verdict.evidence.contains("Testing cancelled because the build failed."))
        XCTAssertTrue(
            verdict.evidence.contains {
                $0.hasPrefix("build command failed: SwiftCompile normal arm64 Compiling\\ EventCode")
            })
    }

    func testXcodesOwnTestingProjectEntryIsNotABuildFailure() {
        // Xcode 16.4+ lists `Testing project … with scheme …` under the failed build commands (apple-formats.md 3.7).
        let log =
            "Failing tests:\n\tReadingIDTests.testEmpty()\n\n** TEST FAILED **\n\n"
            + "The following build commands failed:\n\tTesting project Reader with scheme Reader\n(1 failure)\n"
        XCTAssertEqual(
            XcodebuildOutcomeClassifier.classify(exit: .exited(65), log: facts(text: log)).outcome, .testsFailed)
    }

    func testHostConfigurationErrors() throws {
        let cases: [(String, Int32, String)] = [
            ("error-scheme-not-found-project.log", 65, "the scheme is missing or not shared (Manage Schemes > Shared)"),
            (
                "error-scheme-not-found-workspace.log", 65,
                "the scheme is missing or not shared (Manage Schemes > Shared)"
            ),
            ("error-no-test-action.log", 66, "the scheme has no test action"),
            ("error-destination-not-found-xcode10.log", 70, "no destination matches the chosen simulator"),
            ("error-destination-not-found-xcode14.log", 70, "no destination matches the chosen simulator"),
            ("error-destination-runtime-not-installed.log", 70, "no destination matches the chosen simulator"),
            ("error-device-not-found-xcode26.log", 70, "no destination matches the chosen simulator"),
            ("error-existing-result-bundle.log", 64, "the result bundle path already exists"),
            ("error-project-does-not-exist.log", 66, "the project or workspace is not in the uploaded workspace"),
        ]
        for (fixture, code, reason) in cases {
            let verdict = try classify(fixture, .exited(code))
            XCTAssertEqual(verdict.outcome, .hostConfig, fixture)
            XCTAssertEqual(verdict.evidence.first, reason, fixture)
            XCTAssertEqual(verdict.evidence.dropFirst().first, "exit \(code)", fixture)
            XCTAssertTrue(verdict.evidence.contains { $0.hasPrefix("xcodebuild: error: ") }, fixture)
        }
        let noXcode = XcodebuildOutcomeClassifier.classify(
            exit: .exited(1),
            log: facts(text: try Fixture.text("xcode/version-command-line-tools-only.txt")))
        XCTAssertEqual(noXcode.outcome, .hostConfig)
        XCTAssertEqual(
            XcodebuildOutcomeClassifier.classify(exit: .exited(127), log: facts(text: "")).outcome, .hostConfig)
    }

    func testPackageResolution() throws {
        XCTAssertEqual(try classify("error-package-resolution.log", .exited(74)).outcome, .buildFailed)
        // Variants of the indented cause (constructed; the first line is the real one from apple-formats.md 4.5).
        let head = "xcodebuild: error: Could not resolve package dependencies:\n"
        let network = facts(text: head + "  Could not resolve host: github.com\n")
        XCTAssertEqual(XcodebuildOutcomeClassifier.classify(exit: .exited(74), log: network).outcome, .infrastructure)
        let credentials = facts(text: head + "  Authentication failed because the credentials were missing\n")
        XCTAssertEqual(XcodebuildOutcomeClassifier.classify(exit: .exited(74), log: credentials).outcome, .hostConfig)
    }

    func testRunnerCrashWithoutAFailingTestIsATestFailure() throws {
        let lines = try Fixture.text("xcodebuild/testing-failed-runner-crash.log").split(
            separator: "\n", omittingEmptySubsequences: false)
        let withoutFailingTests = lines.filter {
            !$0.hasPrefix("Failing tests:") && !$0.hasPrefix("\tTestingProjectTests.example2()")
        }
        let verdict = XcodebuildOutcomeClassifier.classify(
            exit: .exited(65), log: facts(text: withoutFailingTests.joined(separator: "\n")))
        XCTAssertEqual(verdict.outcome, .testsFailed)
        XCTAssertTrue(
            verdict.evidence.contains {
                $0.hasPrefix("Testing failed: Run test suite TestingProjectTests encountered an error")
            })
        XCTAssertEqual(try classify("testing-failed-runner-crash.log", .exited(65)).outcome, .testsFailed)
    }

    func testRunnerThatCouldNotStartIsInfrastructure() {
        let log = "Testing failed:\n\tUnable to boot the Simulator.\n\n** TEST FAILED **\n"
        let verdict = XcodebuildOutcomeClassifier.classify(exit: .exited(65), log: facts(text: log))
        XCTAssertEqual(verdict.outcome, .infrastructure)
        XCTAssertEqual(verdict.evidence.first, "Testing failed: Unable to boot the Simulator.")
    }

    func testExecutionTimeAllowanceIsATestFailureNotATimeout() {
        let log =
            "/Users/ci/ReaderTests/IntentTests.swift:30: error: -[ReaderTests.IntentTests testSlow] : "
            + "Test exceeded execution time allowance of 1 minute\n** TEST FAILED **\n"
        let verdict = XcodebuildOutcomeClassifier.classify(exit: .exited(65), log: facts(text: log))
        XCTAssertEqual(verdict.outcome, .testsFailed)
        XCTAssertTrue(verdict.evidence.contains { $0.hasPrefix("over XCTest's execution time allowance") })
    }

    func testBundleFailureOverTheTimeAllowanceIsATestFailure() throws {
        // `failureText` as apple-formats.md 5.2 quotes it for a test over XCTest's execution time allowance.
        let json = """
            { "title" : "Test - Reader", "result" : "Failed", "passedTests" : 0, "failedTests" : 1, "skippedTests" : 0,
              "expectedFailures" : 0, "testFailures" : [ { "testName" : "testSlow()", "targetName" : "ReaderTests",
              "failureText" : "Test exceeded execution time allowance of 1 minute",
              "testIdentifierString" : "IntentTests/testSlow()" } ] }
            """
        let verdict = XcodebuildOutcomeClassifier.classify(
            exit: .exited(65), log: facts(text: "** TEST FAILED **\n"),
            summary: try XcresultSummary.decode(Data(json.utf8)))
        XCTAssertEqual(verdict.outcome, .testsFailed)
        XCTAssertTrue(
            verdict.evidence.contains(
                "bundle: IntentTests/testSlow(): Test exceeded execution time allowance of 1 minute (over XCTest's time "
                    + "allowance: a test failure)"), "\(verdict.evidence)")
    }

    func testEndsWithoutAnExitStatus() throws {
        let log = try facts("test-failed-xcode15.log")
        XCTAssertEqual(XcodebuildOutcomeClassifier.classify(exit: .cancelled, log: log).outcome, .cancelled)
        let timedOut = XcodebuildOutcomeClassifier.classify(exit: .timedOut, log: log)
        XCTAssertEqual(timedOut.outcome, .timedOut)
        XCTAssertEqual(
            Array(timedOut.evidence.prefix(2)),
            [
                "the layer's timeout ran out; the remote process group was killed",
                "the last test that started: ConfirmPhoneNumberViewModelTests/testOnLoadAsync_ShouldSetMaskedPhoneNumber_WhenDataIsFetched()",
            ])
        // A test that failed an assertion failed the app, however the run ended afterwards.
        let lost = XcodebuildOutcomeClassifier.classify(exit: .lost("socket closed"), log: log)
        XCTAssertEqual(lost.outcome, .testsFailed)
        XCTAssertTrue(lost.evidence.contains("then the connection was lost before xcodebuild ended: socket closed"))
        let killed = XcodebuildOutcomeClassifier.classify(exit: .signaled("KILL"), log: log)
        XCTAssertEqual(killed.outcome, .testsFailed)
        XCTAssertTrue(killed.evidence.contains("then xcodebuild was killed by signal KILL"), "\(killed.evidence)")
        let passedOnly = facts(
            text: "Test Case '-[M.C testA]' started.\nTest Case '-[M.C testA]' passed (0.1 seconds).\n")
        XCTAssertEqual(
            XcodebuildOutcomeClassifier.classify(exit: .lost("socket closed"), log: passedOnly).outcome, .infrastructure
        )
        let killedClean = XcodebuildOutcomeClassifier.classify(exit: .signaled("KILL"), log: passedOnly)
        XCTAssertEqual(killedClean.outcome, .infrastructure)
        XCTAssertEqual(killedClean.evidence.first, "xcodebuild was killed by signal KILL")
    }

    func testFailuresBeforeTheEndAreEvidenceOfACancelOrATimeout() throws {
        let log = try facts("test-failed-xcode15.log")
        for exit in [RemoteExit.cancelled, .timedOut] {
            let verdict = XcodebuildOutcomeClassifier.classify(exit: exit, log: log)
            XCTAssertEqual(verdict.outcome, exit == .cancelled ? .cancelled : .timedOut)
            XCTAssertTrue(verdict.evidence.contains { $0.contains("XCTAssertTrue failed") }, "\(verdict.evidence)")
        }
    }

    func testFailedTestsThenNoBanner() {
        let log = facts(
            text: "Test Case '-[M.C testA]' started.\n/p/C.swift:3: error: -[M.C testA] : XCTAssertTrue failed\n"
                + "Test Case '-[M.C testA]' failed (0.010 seconds).\nTest Case '-[M.C testB]' started.\n")
        let killed = XcodebuildOutcomeClassifier.classify(exit: .exited(137), log: log)
        XCTAssertEqual(killed.outcome, .testsFailed)
        XCTAssertTrue(killed.evidence.contains("exit 137: xcodebuild was killed by signal 9"), "\(killed.evidence)")
        XCTAssertTrue(killed.evidence.contains("the run ended without a banner (killed, or cut short)"))
        let unknown = XcodebuildOutcomeClassifier.classifyEndedWithoutVerdict(log: log)
        XCTAssertEqual(unknown?.outcome, .testsFailed)
        XCTAssertEqual(
            unknown?.evidence.last,
            "then the log ended without a banner and no exit code is known (killed, or cut short)")
    }

    func testNoBannerDiskFullInterruptedAndUnknownErrors() {
        XCTAssertEqual(
            XcodebuildOutcomeClassifier.classify(
                exit: .exited(65), log: facts(text: "Build settings from command line:\n")
            ).outcome, .infrastructure)
        let killedByShell = XcodebuildOutcomeClassifier.classify(exit: .exited(137), log: facts(text: ""))
        XCTAssertEqual(killedByShell.outcome, .infrastructure)
        XCTAssertEqual(killedByShell.evidence.first, "exit 137 means xcodebuild was killed by signal 9")
        let diskFull = facts(
            text:
                "error: unable to write file '/x.o': No space left on device\n** TEST FAILED **\nFailing tests:\n\tA.b()\n"
        )
        XCTAssertEqual(XcodebuildOutcomeClassifier.classify(exit: .exited(65), log: diskFull).outcome, .infrastructure)
        XCTAssertEqual(
            XcodebuildOutcomeClassifier.classify(exit: .exited(65), log: facts(text: "** BUILD INTERRUPTED **\n"))
                .outcome,
            .infrastructure)
        let usage = facts(text: "xcodebuild: error: invalid option '-frobnicate'\n")
        XCTAssertEqual(XcodebuildOutcomeClassifier.classify(exit: .exited(64), log: usage).outcome, .pluginError)
        XCTAssertEqual(
            XcodebuildOutcomeClassifier.classify(exit: .exited(65), log: facts(text: "** TEST FAILED **\n")).outcome,
            .testsFailed)
    }
}
