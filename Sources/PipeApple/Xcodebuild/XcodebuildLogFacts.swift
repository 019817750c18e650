import PipeCore

/// What the verdict needs from a whole xcodebuild log, gathered line by line with bounded memory.
public struct XcodebuildLogFacts: Equatable, Sendable {
    /// How many items each list keeps (the first ones: the first error is usually the cause of the rest).
    public static let listLimit = 50

    /// The last `** … **` banner seen.
    public internal(set) var banner: XcodebuildBanner?
    /// Every banner, in order: a `clean test` log prints one per action, two runs back to back one per run.
    public internal(set) var banners = BoundedList<XcodebuildBanner>(limit: listLimit)
    /// Actions named by the `Command line invocation:` lines, in order.
    public internal(set) var invokedActions = BoundedList<String>(limit: listLimit)
    /// The outermost `Executed N tests, with M failures` of each run (nested suites print their own).
    public internal(set) var statedTotals = BoundedList<StatedTotal>(limit: listLimit)
    /// The last result bundle path printed.
    public internal(set) var resultBundlePath: String?
    /// `Writing error result bundle to …`: a temporary bundle xcodebuild writes when it fails before building.
    public internal(set) var errorResultBundlePath: String?

    /// Failed tests with the first issue recorded for each (from any kind of test line).
    public internal(set) var failedTests = BoundedList<TestCaseResult>(limit: listLimit)
    /// Identifiers under `Failing tests:` (normalized to `Suite/test()`).
    public internal(set) var failingTestsListed = BoundedList<String>(limit: listLimit)
    /// Tests whose process crashed, as `Testing failed:` names them (`Crash: App (65214) Suite.test()`).
    public internal(set) var crashedTestsNamed = BoundedList<String>(limit: listLimit)
    /// Lines under `Testing failed:`.
    public internal(set) var testingFailedLines = BoundedList<String>(limit: listLimit)
    /// Lines under `The following build commands failed:`.
    public internal(set) var buildCommandsFailed = BoundedList<String>(limit: listLimit)
    /// `path:line:column: error: …` lines.
    public internal(set) var compilerErrors = BoundedList<String>(limit: listLimit)
    /// `xcodebuild: error: …` and the like (whole lines).
    public internal(set) var toolErrors = BoundedList<String>(limit: listLimit)
    /// Indented lines right after a tool error (e.g. why package resolution failed).
    public internal(set) var toolErrorDetails = BoundedList<String>(limit: listLimit)
    /// `Restarting after unexpected exit, crash, or test timeout…` lines.
    public internal(set) var restartLines = BoundedList<String>(limit: listLimit)
    /// Lines that say the test runner or simulator failed (`TestRunnerFailure`), not the app.
    public internal(set) var testRunnerFailureLines = BoundedList<String>(limit: listLimit)
    /// Code-signing and provisioning error lines (`SigningFailure`).
    public internal(set) var signingErrorLines = BoundedList<String>(limit: listLimit)
    /// `Macro “M” from package “P” must be enabled before it can be used` (and the same for a package plugin): the
    /// host has not trusted the package's macro or plugin, which Xcode asks of a person once, and CI skips with a flag.
    public internal(set) var untrustedPackageExtensionLines = BoundedList<String>(limit: listLimit)
    /// Lines that say the disk is full (`No space left on device`).
    public internal(set) var diskFullLines = BoundedList<String>(limit: listLimit)
    /// Lines that say a test exceeded XCTest's execution time allowance (a test failure, not a layer timeout).
    public internal(set) var executionTimeAllowanceLines = BoundedList<String>(limit: listLimit)
    /// `Command SwiftCompile failed with a nonzero exit code` and the like: a build step that failed (the compiler
    /// crashed, a script phase failed), also where no `path:line:column: error:` line says why.
    public internal(set) var failedBuildSteps = BoundedList<String>(limit: listLimit)
    /// `Fatal error: …` (a Swift runtime trap) while an XCTest test was running: that test crashed.
    public internal(set) var crashLines = BoundedList<String>(limit: listLimit)
    /// A line only xcodebuild prints (`Build settings from command line:`, `=== BUILD TARGET`, a build step such as
    /// `CompileSwift`, `Testing started`): the log is xcodebuild's, which ends with a banner, not `swift test`'s.
    public internal(set) var sawXcodebuildOutput = false
    /// Swift Testing printed `Test run started.`, and `Test run with N tests passed/failed after …` once it ended.
    public internal(set) var swiftTestingRunStarted = false
    public internal(set) var swiftTestingRunEnd: String?
    /// The tests each Swift Testing run says it ran (`Test run with N tests …`; its failures are not stated).
    public internal(set) var swiftTestingTotals = BoundedList<StatedTotal>(limit: listLimit)
    /// `Testing cancelled because the build failed.` was printed.
    public internal(set) var testingCancelledBecauseBuildFailed = false
    /// The last test that started; names the test that was running when a layer timed out.
    public internal(set) var lastStartedTest: String?
    public internal(set) var lineCount = 0

    var counts: [XcodebuildLogEvent.Origin: Counts] = [:]
    /// Tests whose latest result is a failure: a pass on a retry takes a test off (it is flaky, not failed).
    var failingNow: Set<String> = []
    /// Failures past `failingNowLimit`, still counted as failing (no retry can be matched to them).
    var failingUntracked = 0
    static let failingNowLimit = 10_000
    /// Failed tests whose failure is itself a runner failure (`Failure attempting to launch …`).
    var failedByTheRunner: Set<String> = []
    /// The test that started and has not ended yet, and whether an XCTest line started it (XCTest runs one test
    /// at a time in a process; Swift Testing runs them at once, so a crash cannot be pinned on one).
    var runningTest: String?
    var runningTestIsXCTest = false
    /// The suites open now, outermost first, by name: a log may leave out a nested suite's end line, and the
    /// outermost's end closes everything inside it.
    var openSuites: [String] = []
    static let openSuitesLimit = 64
    var sawSuite = false
    /// The suite that just ended was outermost: the next `Executed …` line is its run's total.
    var outermostSuiteJustEnded = false
    /// xcodebuild reported Swift Testing tests itself (`Suite/test()` or a global `test()`), so the library's own
    /// `✔/✘` lines for them (events of origin `.swiftTesting`) are duplicates and are not counted again.
    public internal(set) var xcodebuildReportedSwiftTesting = false

    /// `Executed 922 tests, with 1 failure (0 unexpected) in …`.
    public struct StatedTotal: Equatable, Sendable {
        public var executed: Int
        public var failures: Int
        public var line: String
    }

    struct Counts: Equatable, Sendable {
        var passed = 0
        var failed = 0
        var skipped = 0
    }

    public init() {}

    /// Tests counted once each, whichever kind of line reported them.
    public var passedCount: Int { total(\.passed) }
    public var failedCount: Int { total(\.failed) }
    public var skippedCount: Int { total(\.skipped) }

    /// Tests whose latest run failed: `failedCount` less the tests that passed on a retry.
    public var stillFailingCount: Int { failingNow.count + failingUntracked }

    /// Tests that stayed failed for a reason of the app: their failure is not a test-runner failure.
    public var appFailureCount: Int { failingNow.subtracting(failedByTheRunner).count + failingUntracked }

    /// The action the log was asked for (`test` when it does not say).
    public var requestedAction: XcodebuildRequestedAction {
        XcodebuildRequestedAction.deciding(invokedActions.items)
    }

    /// The last success banner of the requested action: the only banner that can make a layer pass.
    public var successBanner: XcodebuildBanner? {
        let action = requestedAction
        return banners.items.last { $0.result == .succeeded && action.bannerActions.contains($0.action) }
    }

    /// The first failure banner of any action: a failed step fails the layer, whatever came after.
    public var failureBanner: XcodebuildBanner? {
        banners.items.first { $0.result == .failed }
    }

    /// Whether the test tools' own lines show every run they started ended: XCTest's outermost suite closed, and
    /// Swift Testing's `Test run with …` line printed if its run started. `swift test` prints no `** … **` banner,
    /// so these lines are its verdict.
    public var testRunsEnded: Bool {
        let xctestEnded = sawSuite && openSuites.isEmpty && !statedTotals.isEmpty
        let swiftTestingEnded = swiftTestingRunEnd != nil
        guard xctestEnded || swiftTestingEnded, runningTest == nil else { return false }
        return (xctestEnded || !sawSuite) && (swiftTestingEnded || !swiftTestingRunStarted)
    }

    /// The one `Suite/test()` that `Failing tests:` or a `Testing failed:` crash gives a suite-less `test()`, if any.
    public func listedName(of identifier: String) -> String? {
        guard !identifier.contains("/") else { return nil }
        let matches = Set(
            (failingTestsListed.items + crashedTestsNamed.items).filter { $0.hasSuffix("/" + identifier) })
        return matches.count == 1 ? matches.first : nil
    }

    /// The tests and failures the log's own totals state (the sum over runs).
    public var statedExecuted: Int { statedTotals.items.reduce(0) { $0 + $1.executed } }
    public var statedFailures: Int { statedTotals.items.reduce(0) { $0 + $1.failures } }
    /// The test runs the log's totals state: XCTest's and Swift Testing's together.
    public var statedTestRuns: Int { statedExecuted + swiftTestingTotals.items.reduce(0) { $0 + $1.executed } }

    /// Whether any test failed and stayed failed, by its own line, by `Failing tests:`, or by the log's totals
    /// when no test line said so.
    public var hasFailedTests: Bool {
        stillFailingCount > 0 || !failingTestsListed.isEmpty || (failedCount == 0 && statedFailures > 0)
    }

    /// Whether a test failed for a reason of the app: `hasFailedTests` without the failures that are the test
    /// runner's own (a listed test counts only when no runner failure explains it).
    public var hasAppFailures: Bool {
        appFailureCount > 0 || (failedCount == 0 && statedFailures > 0)
            || (!failingTestsListed.isEmpty && testRunnerFailureLines.isEmpty)
    }

    /// Where the tests counted from XCTest's or Swift Testing's lines differ from the log's own totals, the
    /// sentence that says so.
    public var totalsDisagreement: String? {
        var sentences: [String] = []
        if !statedTotals.isEmpty {
            let xctest = counts[.xctest] ?? Counts()
            let seen = xctest.passed + xctest.failed + xctest.skipped
            if seen != statedExecuted || xctest.failed != statedFailures {
                let runs = statedTotals.totalCount == 1 ? "" : " over \(statedTotals.totalCount) runs"
                sentences.append(
                    "the log's totals (`Executed …`\(runs)) say \(statedExecuted) tests ran with \(statedFailures) "
                        + "failures; its test lines show \(seen) tests, \(xctest.failed) failed")
            }
        }
        if !swiftTestingTotals.isEmpty {
            let library = counts[.swiftTesting] ?? Counts()
            let seen = library.passed + library.failed + library.skipped
            let stated = swiftTestingTotals.items.reduce(0) { $0 + $1.executed }
            if seen != stated {
                let runs = swiftTestingTotals.totalCount == 1 ? "" : " over \(swiftTestingTotals.totalCount) runs"
                sentences.append(
                    "the log's totals (Swift Testing's `Test run with …`\(runs)) say \(stated) tests ran; its "
                        + "test lines show \(seen)")
            }
        }
        return sentences.isEmpty ? nil : sentences.joined(separator: "; ")
    }

    private func total(_ field: KeyPath<Counts, Int>) -> Int {
        var sum = (counts[.xctest]?[keyPath: field] ?? 0) + (counts[.xcodebuild]?[keyPath: field] ?? 0)
        if !xcodebuildReportedSwiftTesting { sum += counts[.swiftTesting]?[keyPath: field] ?? 0 }
        return sum
    }

    mutating func count(_ status: TestCaseResult.Status, origin: XcodebuildLogEvent.Origin) {
        var current = counts[origin] ?? Counts()
        switch status {
        case .passed, .expectedFailure: current.passed += 1
        case .failed: current.failed += 1
        case .skipped: current.skipped += 1
        }
        counts[origin] = current
    }

    /// Keeps `failingNow` up to date with a test's latest result.
    mutating func track(_ result: TestCaseResult) {
        switch result.status {
        case .failed:
            if let message = result.failureMessage, TestRunnerFailure.matches(message),
                failedByTheRunner.count < Self.failingNowLimit
            {
                failedByTheRunner.insert(result.identifier)
            }
            if failingNow.count < Self.failingNowLimit {
                failingNow.insert(result.identifier)
            } else if !failingNow.contains(result.identifier) {
                failingUntracked += 1
            }
        case .passed, .expectedFailure, .skipped:
            failingNow.remove(result.identifier)
        }
    }
}
