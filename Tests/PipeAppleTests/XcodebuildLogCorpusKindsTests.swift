import Foundation
import PipeApple
import PipeCore
import XCTest

/// Kinds of log the real corpus (`PipeReportTests/Fixtures/real`) showed read wrong, each in its smallest form.
final class XcodebuildLogCorpusKindsTests: XCTestCase {
    private func facts(_ log: String) -> XcodebuildLogFacts {
        XcodebuildLogParser.parse(Data(log.utf8)).facts
    }

    /// The verdict of a log whose xcodebuild exited 65 (a failure banner).
    private func exited65(_ log: String) -> XcodebuildVerdict {
        XcodebuildOutcomeClassifier.classify(exit: .exited(65), log: facts(log))
    }

    private let xctestRun =
        "Test Suite 'All tests' started at 2025-05-28 12:34:01.893.\n"
        + "Test Suite 'Pkg.xctest' started at 2025-05-28 12:34:01.893.\n"
        + "Test Suite 'TestClass' started at 2025-05-28 12:34:01.893.\n"
        + "Test Case '-[Pkg.TestClass test1]' started.\n"
        + "Test Case '-[Pkg.TestClass test1]' passed (0.035 seconds).\n"
        // The nested suite's end line is missing, as in the real log: the outermost end closes it.
        + "Test Suite 'Pkg.xctest' passed at 2025-05-28 12:34:02.222.\n"
        + "\t Executed 1 test, with 0 failures (0 unexpected) in 0.327 (0.329) seconds\n"
        + "Test Suite 'All tests' passed at 2025-05-28 12:34:02.222.\n"
        + "\t Executed 1 test, with 0 failures (0 unexpected) in 0.327 (0.329) seconds\n"
    private let swiftTestingStart =
        "\u{1007C8} Test run started.\n\u{1007C8} Suite S started.\n\u{1007C8} Test t() started.\n"
        + "\u{10105B} Test t() passed after 0.006 seconds.\n"

    /// `swift test` prints no banner: its test tools' totals, once every run ended, are its verdict.
    func testASwiftTestLogEndedByItsOwnTotalsPassed() throws {
        let log = xctestRun + swiftTestingStart + "\u{10105B} Test run with 1 test passed after 0.007 seconds.\n"
        let verdict = try XCTUnwrap(XcodebuildOutcomeClassifier.classifyEndedWithoutVerdict(log: facts(log)))
        XCTAssertEqual(verdict.outcome, .passed)
        XCTAssertTrue(verdict.evidence.contains("Test run with 1 test passed after 0.007 seconds."), "\(verdict)")
        XCTAssertTrue(verdict.evidence.contains { $0.hasPrefix("Executed 1 test, with 0 failures") }, "\(verdict)")
    }

    func testASwiftTestLogCutShortHasNoVerdict() {
        XCTAssertNil(XcodebuildOutcomeClassifier.classifyEndedWithoutVerdict(log: facts(xctestRun + swiftTestingStart)))
        let running = xctestRun + "\u{1007C8} Test run started.\n\u{1007C8} Test t() started.\n"
        XCTAssertNil(XcodebuildOutcomeClassifier.classifyEndedWithoutVerdict(log: facts(running)))
        let xcodebuild = "Command line invocation:\n    /usr/bin/xcodebuild -scheme S test\n\n" + xctestRun
        XCTAssertNil(
            XcodebuildOutcomeClassifier.classifyEndedWithoutVerdict(log: facts(xcodebuild)),
            "xcodebuild always prints a banner: without it the run was cut short")
        let oldXcodebuild = "Build settings from command line:\n    SDKROOT = iphonesimulator7.0\n\n" + xctestRun
        XCTAssertNil(
            XcodebuildOutcomeClassifier.classifyEndedWithoutVerdict(log: facts(oldXcodebuild)),
            "an xcodebuild log of an Xcode that printed no invocation line is xcodebuild's all the same")
    }

    func testAnInvocationNamingNoActionIsABuild() {
        let log =
            "Command line invocation:\n    \n/Applications/Xcode.app/Contents/Developer/usr/bin/xcodebuild "
            + "-project /p/App.xcodeproj -scheme App -destination id=4023268C\n\n** BUILD SUCCEEDED ** [12.692 sec]\n"
        XCTAssertEqual(facts(log).requestedAction.name, "build")
        XCTAssertEqual(XcodebuildOutcomeClassifier.classify(exit: .exited(0), log: facts(log)).outcome, .passed)
        XCTAssertEqual(XcodebuildRequestedAction.actions(inInvocation: "xcodebuild -exportArchive -archivePath a"), [])
    }

    /// A Swift runtime trap in the XCTest test that was running is that test's crash, though no line ends it.
    func testAFatalErrorInARunningXCTestIsItsCrash() throws {
        let log =
            "Test Case '-[DateTests.CalendarDay__Tests testToday]' started.\n"
            + "DateTests/CalendarDayTests.swift:63: Fatal error: This test is not implemented yet.\n"
            + "Child process terminated with signal 5: Trace/BPT trap\n"
        let read = facts(log)
        let failure = try XCTUnwrap(read.failedTests.items.first)
        XCTAssertEqual(failure.identifier, "CalendarDay__Tests/testToday()")
        XCTAssertEqual(failure.failureLocation, "CalendarDayTests.swift:63")
        XCTAssertEqual(failure.failureMessage, "crashed: Fatal error: This test is not implemented yet.")
        XCTAssertEqual(XcodebuildOutcomeClassifier.classifyEndedWithoutVerdict(log: read)?.outcome, .testsFailed)
        let library = "\u{1007C8} Test t() started.\nT.swift:24: Fatal error: nil\n"
        XCTAssertEqual(facts(library).failedCount, 0, "Swift Testing runs tests at once: a trap names none of them")
    }

    func testAFailedBuildStepBeforeAnyTestIsABuildFailure() {
        let log = "Command SwiftCompile failed with a nonzero exit code\nStack dump:\n0.\tProgram arguments: …\n"
        XCTAssertEqual(XcodebuildOutcomeClassifier.classifyEndedWithoutVerdict(log: facts(log))?.outcome, .buildFailed)
    }

    func testAnUntrustedPackageMacroIsTheHostsConfiguration() {
        let log =
            "/p/Package.swift:PACKAGE-TARGET:M: error: Macro “M” from package “p” must be enabled before it can be "
            + "used\n\nThe following build commands failed:\n\tComputeTargetDependencyGraph\n(1 failure)\n"
            + "** BUILD FAILED **\n"
        let verdict = exited65(log)
        XCTAssertEqual(verdict.outcome, .hostConfig)
        XCTAssertTrue(verdict.evidence.first?.contains("-skipMacroValidation") == true, "\(verdict)")
    }

    func testTheCrashNamedUnderTestingFailedIsAFailedTest() {
        let log =
            "Testing failed:\n\tRun test suite T encountered an error (Exceeded max restart count of 2. (Underlying "
            + "Error: Crash: App (65214) TestingProjectTests.example3()))\n\n** TEST EXECUTE FAILED **\n"
        XCTAssertEqual(facts(log).crashedTestsNamed.items, ["TestingProjectTests/example3()"])
    }

    /// The library names a failed test without its suite; `Failing tests:` gives the bundle's name.
    func testAFailedSwiftTestingTestTakesItsNameFromFailingTests() {
        var collector = XcodebuildTestCollector()
        _ = collector.record(.init(identifier: "optional()", status: .passed), origin: .swiftTesting)
        _ = collector.record(.init(identifier: "unconditionalFail()", status: .failed), origin: .swiftTesting)
        _ = collector.record(.init(identifier: "Test 3", status: .failed), origin: .swiftTesting)
        let names = ["H/unconditionalFail()", "SomeTests/test3()"]
        XCTAssertEqual(
            collector.finalResults(xcodebuildReportedSwiftTesting: false, qualifiedNames: names).map(\.identifier),
            ["optional()", "H/unconditionalFail()", "SomeTests/test3()"])
        _ = collector.record(.init(identifier: "Test 4", status: .failed), origin: .swiftTesting)
        XCTAssertEqual(
            collector.finalResults(xcodebuildReportedSwiftTesting: false, qualifiedNames: names + ["S/t4()"])
                .map(\.identifier),
            ["optional()", "H/unconditionalFail()", "Test 3", "Test 4"], "two display names: no guess")
    }

    /// A crashed test process leaves its suites open; the restarted one's outermost total is still its run's.
    func testTheRestartedProcessTotalIsRead() {
        let log =
            "Test Suite 'All tests' started at 2023-10-31 15:59:00.826.\nTest Suite 'C' started at 2023-10-31.\n"
            + "Test Case '-[M.C testA]' started.\nM.swift:1: Fatal error: nil\n"
            + "Restarting after unexpected exit, crash, or test timeout in C.testA(); summary will include totals from "
            + "previous launches.\nTest Suite 'Selected tests' started at 2023-10-31 15:59:05.142.\n"
            + "Test Case '-[M.C testB]' started.\nTest Case '-[M.C testB]' passed (0.001 seconds).\n"
            + "Test Suite 'Selected tests' passed at 2023-10-31 15:59:05.143.\n"
            + "\t Executed 2 tests, with 1 failure (0 unexpected) in 0.001 (0.001) seconds\n"
        let read = facts(log)
        XCTAssertEqual(read.statedTotals.items.map(\.executed), [2])
        XCTAssertNil(read.totalsDisagreement)
        XCTAssertEqual(read.failedTests.items.map(\.identifier), ["C/testA()"])
    }

    func testTheEvidenceNamesAFailedSwiftTestingTestAsFailingTestsDoes() {
        let log =
            "\u{2718} Test unconditionalFail() recorded an issue at H.swift:38:25: Issue recorded\n"
            + "\u{2718} Test unconditionalFail() failed after 0.001 seconds with 1 issue.\n\n"
            + "Failing tests:\n\tH.unconditionalFail()\n\n** TEST EXECUTE FAILED **\n"
        let evidence = exited65(log).evidence
        XCTAssertTrue(evidence.contains("H/unconditionalFail() failed at H.swift:38:25: Issue recorded"), "\(evidence)")
    }

    func testSwiftTestingTotalsAreCheckedAgainstItsLines() {
        let log = swiftTestingStart + "\u{10105B} Test run with 2 tests passed after 0.007 seconds.\n"
        XCTAssertEqual(facts(log).statedTestRuns, 2)
        XCTAssertEqual(
            facts(log).totalsDisagreement,
            "the log's totals (Swift Testing's `Test run with …`) say 2 tests ran; its test lines show 1")
    }
}
