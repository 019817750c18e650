import Foundation
import PipeApple
import PipeCore
import XCTest

final class XcodebuildLogParserTests: XCTestCase {
    private func parse(_ fixture: String) throws -> (events: [XcodebuildLogEvent], facts: XcodebuildLogFacts) {
        XcodebuildLogParser.parse(try Fixture.data("xcodebuild/\(fixture)"))
    }

    private func parse(text: String) -> (events: [XcodebuildLogEvent], facts: XcodebuildLogFacts) {
        XcodebuildLogParser.parse(Data(text.utf8))
    }

    func testSerialXCTestFailureIsAttachedToItsTest() throws {
        let (events, facts) = try parse("test-failed-xcode15.log")
        let failing =
            "EventCodeConfirmViewModelTests/testEvent_ShouldValidateEventAndSetCorrectStatus_WhenFourDigitsAreProvided()"
        XCTAssertTrue(
            events.contains(
                .testIssue(
                    identifier: failing, location: "EventCodeConfirmViewModelTests.swift:71",
                    message: "XCTAssertTrue failed")))
        XCTAssertEqual(
            facts.failedTests.items,
            [
                TestCaseResult(
                    identifier: failing, status: .failed, durationSeconds: 0.46, failureMessage: "XCTAssertTrue failed",
                    failureLocation: "EventCodeConfirmViewModelTests.swift:71", target: "CalendarAppEventCodeTests")
            ])
        XCTAssertTrue(
            events.contains(
                .testFinished(
                    TestCaseResult(
                        identifier:
                            "DeeplinkTapManagerTests/testHandleDeeplinkTap_ShouldReturnFalse_WhenDeeplinkIsInvalid()",
                        status: .passed, durationSeconds: 0, target: "CalendarAppDeeplinksTests"),
                    origin: .xctest)))
        XCTAssertEqual(facts.passedCount, 1)
        XCTAssertEqual(facts.failedCount, 1)
        XCTAssertEqual(
            facts.failingTestsListed.items,
            [
                "ConfirmPhoneNumberViewModelTests/testOnLoadAsync_ShouldSetMaskedPhoneNumber_WhenDataIsFetched()",
                "ConfirmFullNameViewModelTests/testOnLoadAsync_ShouldSetError_WhenDataFetchFailed()",
            ])
        XCTAssertEqual(
            facts.lastStartedTest,
            "ConfirmPhoneNumberViewModelTests/testOnLoadAsync_ShouldSetMaskedPhoneNumber_WhenDataIsFetched()")
        XCTAssertEqual(facts.banner?.line, "** TEST FAILED **")
        // `Writing result bundle at path:` came first; `Test session results…` is the last and wins.
        XCTAssertEqual(
            events.compactMap { if case .resultBundlePath(let path) = $0 { return path } else { return nil } },
            [
                "/Users/ci/build/native-verified-results.xcresult",
                "/Users/john/Library/Developer/Xcode/DerivedData/CalendarAppDemo-gpxsuartkqsliqafuudvbkhotrhj/Logs/Test/Test-CalendarAppDemo-2023.10.31_15-58-18-+0100.xcresult",
            ])
        XCTAssertEqual(
            facts.resultBundlePath?.hasSuffix("Test-CalendarAppDemo-2023.10.31_15-58-18-+0100.xcresult"), true)
    }

    func testParallelLinesFromXcodebuild() throws {
        let (events, facts) = try parse("parallel-xctest.log")
        let finished = events.compactMap { event -> TestCaseResult? in
            if case .testFinished(let result, .xcodebuild) = event { return result }
            return nil
        }
        XCTAssertEqual(
            finished.map(\.identifier),
            [
                "ShortcutRecorderCrashTests/testCrash()", "ShortcutRecorderCrashTests/testOK()",
                "HeckelAlgorithmTests/testAlgorithmShouldReturnOnlyDeletesWhenOldArrayContainsItemsAndNewArrayIsEmpty()",
                "Some_TestUITestsLaunchTests/testLaunch()",
                "UserCoordinatorTests/test_resetPassword_requestSucceeds_completionCalledWithSuccess()",
            ])
        XCTAssertEqual(finished.map(\.status), [.failed, .passed, .passed, .passed, .skipped])
        XCTAssertEqual(finished[3].durationSeconds, 3.768)
        XCTAssertEqual([facts.passedCount, facts.failedCount, facts.skippedCount], [3, 1, 1])
    }

    func testSwiftTestingLibraryLines() throws {
        let (events, facts) = try parse("swift-testing-native.log")
        XCTAssertTrue(events.contains(.testStarted(identifier: "example()")))
        XCTAssertTrue(
            events.contains(
                .testFinished(
                    TestCaseResult(identifier: "example()", status: .passed, durationSeconds: 0.001),
                    origin: .swiftTesting)))
        XCTAssertEqual(
            facts.failedTests.items,
            [
                TestCaseResult(
                    identifier: "example2()", status: .failed, durationSeconds: 0.001,
                    failureMessage: "Expectation failed: 1 == 2", failureLocation: "TestingProjectTests.swift:18:9"),
                // It recorded an issue and the log ended before its own line: a failure all the same.
                TestCaseResult(
                    identifier: "checkMakeEnvVars(request:expectedEnvVars:)", status: .failed,
                    failureMessage: "Caught error: …", failureLocation: "CliClientTests.swift:59:2"),
            ])
        XCTAssertTrue(
            events.contains(
                .testFinished(
                    TestCaseResult(identifier: "skippedTest()", status: .skipped, failureMessage: "Skipping this test"),
                    origin: .swiftTesting)))
        XCTAssertTrue(
            events.contains(
                .testIssue(
                    identifier: "checkMakeEnvVars(request:expectedEnvVars:)", location: "CliClientTests.swift:59:2",
                    message: "Caught error: …")))
        XCTAssertTrue(
            events.contains(
                .testFinished(
                    TestCaseResult(identifier: "My name", status: .passed, durationSeconds: 0.001),
                    origin: .swiftTesting)))
        // `Test run with …` and `Suite …` summaries are not tests.
        XCTAssertEqual([facts.passedCount, facts.failedCount, facts.skippedCount], [2, 2, 1])
    }

    func testSwiftTestingWithSFSymbolsAndAZeroWidthSpace() throws {
        let (events, _) = try parse("swift-testing-sf-symbols.log")
        XCTAssertTrue(
            events.contains(
                .testFinished(
                    TestCaseResult(identifier: "example()", status: .passed, durationSeconds: 0.001),
                    origin: .swiftTesting)))
        XCTAssertTrue(
            events.contains(
                .testIssue(
                    identifier: "secondExample()", location: "DemoSwiftTestingTests.swift:11:5",
                    message: "Expectation failed: true == false")))
        let zeroWidth = parse(text: "\u{200B}\u{2714} Test zero() passed after 0.002 seconds.\n")
        XCTAssertEqual(zeroWidth.facts.passedCount, 1)
    }

    func testSwiftTestingReportedByXcodebuildIsNotCountedTwice() throws {
        let (events, facts) = try parse("swift-testing-via-xcodebuild.log")
        XCTAssertTrue(
            events.contains(
                .testFinished(
                    TestCaseResult(
                        identifier: "TestingProjectTests/example2()", status: .failed, durationSeconds: 0.002),
                    origin: .xcodebuild)))
        XCTAssertTrue(events.contains(.failingTestListed("TestingProjectTests/example3()")))
        XCTAssertEqual([facts.passedCount, facts.failedCount], [2, 1])
        XCTAssertEqual(facts.banner?.action, "TEST EXECUTE")
        XCTAssertTrue(facts.xcodebuildReportedSwiftTesting)

        // The same run with the library's own lines in front: still 2 passed, 1 failed.
        let library =
            "\u{25C7} Test example() started.\n\u{2714} Test example() passed after 0.001 seconds.\n"
            + "\u{2718} Test example2() failed after 0.001 seconds with 1 issue.\n"
            + "\u{2714} Test optional() passed after 0.001 seconds.\n"
        let both = XcodebuildLogParser.parse(
            Data(library.utf8) + (try Fixture.data("xcodebuild/swift-testing-via-xcodebuild.log")))
        XCTAssertEqual([both.facts.passedCount, both.facts.failedCount], [2, 1])
    }

    func testBuildFailureBlocks() throws {
        let (events, facts) = try parse("build-failed-during-test.log")
        XCTAssertTrue(facts.testingCancelledBecauseBuildFailed)
        XCTAssertEqual(
            facts.testingFailedLines.items,
            ["Type 'AsyncStatus<()>' has no member 'inProgresss'", "Testing cancelled because the build failed."])
        XCTAssertEqual(facts.buildCommandsFailed.totalCount, 2)
        XCTAssertTrue(
            facts.buildCommandsFailed.items[0].hasPrefix(
                "SwiftCompile normal arm64 Compiling\\ EventCodeConfirmViewModel.swift"),
            "\(facts.buildCommandsFailed.items)")
        XCTAssertTrue(events.contains(.banner(XcodebuildBanner.parse("** TEST FAILED **")!)))
        XCTAssertEqual(
            facts.resultBundlePath?.hasSuffix("Test-CalendarAppDemo-2023.10.31_17-55-22-+0100.xcresult"), true)
    }

    func testRunnerErrorUnderTestingFailed() throws {
        let (_, facts) = try parse("testing-failed-runner-crash.log")
        XCTAssertEqual(facts.testingFailedLines.items.count, 1)
        XCTAssertTrue(
            facts.testingFailedLines.items[0].hasPrefix("Run test suite TestingProjectTests encountered an error"))
        XCTAssertEqual(facts.failingTestsListed.items, ["TestingProjectTests/example2()"])
        XCTAssertFalse(facts.testingCancelledBecauseBuildFailed)
    }

    func testGroupedFailingTestsOfXcode11To13() throws {
        let (_, facts) = try parse("failing-tests-grouped.log")
        XCTAssertEqual(
            facts.failingTestsListed.items,
            ["PushTests/test__008__LocalDevice__has_a_device_method_that_returns_a_LocalDevice()"])
    }

    func testToolErrorsAndTheirIndentedCause() throws {
        let destination = try parse("error-destination-not-found-xcode14.log").facts
        XCTAssertEqual(
            destination.toolErrors.items,
            ["xcodebuild: error: Unable to find a destination matching the provided destination specifier:"])
        XCTAssertEqual(destination.toolErrorDetails.items, ["{ id:1054CB39-B940-55B7-8FE0-94C055A44522 }"])
        XCTAssertEqual(
            destination.errorResultBundlePath,
            "/var/folders/j3/7pvdybj52gxfhhtlfndx5v5c0000gn/T/ResultBundle_2023-10-04_10-58-0030.xcresult")
        XCTAssertNil(destination.banner)

        let packages = try parse("error-package-resolution.log").facts
        XCTAssertEqual(packages.toolErrors.items, ["xcodebuild: error: Could not resolve package dependencies:"])
        XCTAssertTrue(
            packages.toolErrorDetails.items[0].hasPrefix("Dependencies could not be resolved because no versions"))

        let workspace = try parse("error-scheme-not-found-workspace.log").facts
        XCTAssertEqual(workspace.toolErrors.totalCount, 1)
    }

    func testOtherLineKinds() {
        let log = """
            /Users/ci/Fixture.m:146: error: -[StopAfterFailureTests testStops] : ((NO) is true) failed: fixture stop
            Test Case '-[StopAfterFailureTests testStops]' failed (0.001 seconds).
            /Users/ci/ReaderTests/IntentTests.swift:20: -[ReaderTests.IntentTests testHaptics] : Test skipped - needs a device
            Test Case '-[ReaderTests.IntentTests testHaptics]' skipped (0.001 seconds).
            Test Case 'ReadingIDTests.testEmpty' started at 2026-11-29 14:00:00.001
            Test Case 'ReadingIDTests.testEmpty' passed (0.002 seconds)
            /Users/ci/Reader/ReadingID.swift:12:5: error: cannot find 'normalise' in scope
            Restarting after unexpected exit, crash, or test timeout in IntentTests.testSlow(); summary will include totals from previous launches.
            /Users/ci/ReaderTests/IntentTests.swift:30: error: -[ReaderTests.IntentTests testSlow] : Test exceeded execution time allowance of 1 minute
            error: unable to write file '/Users/ci/DerivedData/x.o': No space left on device
            Result bundle written to path:
            \t/Users/ci/runs/r/artifacts/build.xcresult
            xcode-select: error: tool 'xcodebuild' requires Xcode, but active developer directory '/Library/Developer/CommandLineTools' is a command line tools instance
            """
        let (events, facts) = parse(text: log)
        XCTAssertEqual(
            facts.failedTests.first,
            TestCaseResult(
                identifier: "StopAfterFailureTests/testStops", status: .failed, durationSeconds: 0.001,
                failureMessage: "((NO) is true) failed: fixture stop", failureLocation: "Fixture.m:146"))
        XCTAssertTrue(
            events.contains(
                .testFinished(
                    TestCaseResult(
                        identifier: "IntentTests/testHaptics()", status: .skipped, durationSeconds: 0.001,
                        failureMessage: "needs a device", failureLocation: "IntentTests.swift:20", target: "ReaderTests"
                    ),
                    origin: .xctest)))
        XCTAssertTrue(events.contains(.testStarted(identifier: "ReadingIDTests/testEmpty()")))
        XCTAssertEqual(facts.passedCount, 1)
        XCTAssertEqual(
            facts.compilerErrors.items,
            ["/Users/ci/Reader/ReadingID.swift:12:5: error: cannot find 'normalise' in scope"])
        XCTAssertTrue(
            events.contains(
                .compilerError(
                    location: "/Users/ci/Reader/ReadingID.swift:12:5", message: "cannot find 'normalise' in scope")))
        XCTAssertEqual(facts.restartLines.totalCount, 1)
        XCTAssertEqual(facts.executionTimeAllowanceLines.totalCount, 1)
        XCTAssertEqual(facts.diskFullLines.totalCount, 1)
        XCTAssertEqual(facts.resultBundlePath, "/Users/ci/runs/r/artifacts/build.xcresult")
        XCTAssertEqual(facts.toolErrors.first?.hasPrefix("xcode-select: error: tool 'xcodebuild' requires Xcode"), true)
    }

    func testBanners() throws {
        let lines = try Fixture.text("xcodebuild/banners.txt").split(separator: "\n").map(String.init)
        let banners = lines.map(XcodebuildBanner.parse)
        XCTAssertEqual(banners.compactMap { $0 }.count, 9)
        XCTAssertEqual(banners[0], XcodebuildBanner.parse("** TEST SUCCEEDED ** [90.593 sec]"))
        XCTAssertEqual(banners[0]?.action, "TEST")
        XCTAssertEqual(banners[0]?.result, .succeeded)
        XCTAssertEqual(banners[0]?.seconds, 90.593)
        XCTAssertEqual(banners[0]?.line, "** TEST SUCCEEDED ** [90.593 sec]")
        XCTAssertEqual(banners[3]?.action, "TEST EXECUTE")
        XCTAssertEqual(banners[3]?.result, .failed)
        XCTAssertNil(banners[3]?.seconds)
        XCTAssertEqual(banners[4]?.action, "TEST BUILD")
        XCTAssertEqual(banners[7]?.result, .interrupted)
        for notABanner in [
            "** TEST FAILED", "**TEST FAILED **", "** TEST DONE **", "** TEST SUCCEEDED ** [abc sec]",
            "** SUCCEEDED **",
            "** TEST SUCCEEDED ** [90 sec]", "Test Suite 'All tests' passed",
        ] {
            XCTAssertNil(XcodebuildBanner.parse(notABanner), notABanner)
        }
    }

    func testIdentifierNormalization() {
        let cases = [
            "-[ReaderTests.ReadingIDTests testEmpty]": "ReadingIDTests/testEmpty()",
            "+[ClassSetUpThrowsTests setUp]": "ClassSetUpThrowsTests/setUp",
            "-[StopAfterFailureTests testStops]": "StopAfterFailureTests/testStops",
            "ReadingIDTests.testEmpty()": "ReadingIDTests/testEmpty()",
            "ReadingIDTests.testEmpty": "ReadingIDTests/testEmpty()",
            "TestingProjectTests/example2()": "TestingProjectTests/example2()",
            "Outer.Inner.check(value:)": "Outer/Inner/check(value:)",
            "optional()": "optional()",
        ]
        for (printed, normalized) in cases {
            XCTAssertEqual(TestIdentifier.normalize(printed), normalized, printed)
        }
        // Malformed names come back unchanged (trimmed) rather than half-rewritten.
        XCTAssertEqual(TestIdentifier.normalize(""), "")
        XCTAssertEqual(TestIdentifier.normalize("-[Broken"), "-[Broken")
        XCTAssertEqual(TestIdentifier.normalize("-[NoMethod]"), "NoMethod")
        XCTAssertEqual(TestIdentifier.normalize("  spaced()  "), "spaced()")
    }
}
