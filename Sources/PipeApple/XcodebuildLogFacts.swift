import PipeCore

/// What the verdict needs from a whole xcodebuild log, gathered line by line with bounded memory.
public struct XcodebuildLogFacts: Equatable, Sendable {
    /// How many items each list keeps (the first ones: the first error is usually the cause of the rest).
    public static let listLimit = 50

    /// The last `** … **` banner seen (a wrapper that retried prints two; the last decides).
    public internal(set) var banner: XcodebuildBanner?
    /// The last result bundle path printed.
    public internal(set) var resultBundlePath: String?
    /// `Writing error result bundle to …`: a temporary bundle xcodebuild writes when it fails before building.
    public internal(set) var errorResultBundlePath: String?

    /// Failed tests with the first issue recorded for each (from any kind of test line).
    public internal(set) var failedTests = BoundedList<TestCaseResult>(limit: listLimit)
    /// Identifiers under `Failing tests:` (normalized to `Suite/test()`).
    public internal(set) var failingTestsListed = BoundedList<String>(limit: listLimit)
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
    /// Lines that say the disk is full (`No space left on device`).
    public internal(set) var diskFullLines = BoundedList<String>(limit: listLimit)
    /// Lines that say a test exceeded XCTest's execution time allowance (a test failure, not a layer timeout).
    public internal(set) var executionTimeAllowanceLines = BoundedList<String>(limit: listLimit)
    /// `Testing cancelled because the build failed.` was printed.
    public internal(set) var testingCancelledBecauseBuildFailed = false
    /// The last test that started; names the test that was running when a layer timed out.
    public internal(set) var lastStartedTest: String?
    public internal(set) var lineCount = 0

    var counts: [XcodebuildLogEvent.Origin: Counts] = [:]
    /// xcodebuild reported Swift Testing tests itself (`Suite/test()` or a global `test()`), so the library's own
    /// `✔/✘` lines for them (events of origin `.swiftTesting`) are duplicates and are not counted again.
    public internal(set) var xcodebuildReportedSwiftTesting = false

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
}
