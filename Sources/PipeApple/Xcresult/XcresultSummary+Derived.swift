import PipeCore

extension XcresultSummary {
    /// A summary from counts and failures known some other way (the tests tree, the legacy root record), so that
    /// the verdict can weigh them as it weighs `get test-results summary`.
    public init(
        title: String, result: XcresultTestResult, passedTests: Int, failedTests: Int, skippedTests: Int,
        expectedFailures: Int = 0, totalTestCount: Int? = nil, startTime: Double? = nil, finishTime: Double? = nil,
        testFailures: [TestFailure] = [], environmentDescription: String? = nil
    ) {
        self.title = title
        self.environmentDescription = environmentDescription
        self.result = result
        self.passedTests = passedTests
        self.failedTests = failedTests
        self.skippedTests = skippedTests
        self.expectedFailures = expectedFailures
        self.totalTestCount = totalTestCount ?? passedTests + failedTests + skippedTests + expectedFailures
        self.startTime = startTime
        self.finishTime = finishTime
        self.testFailures = testFailures
        self.devicesAndConfigurations = []
    }

    /// The counts and failures of `get test-results tests` (its test cases, as `XcresultTestResults.testCases`).
    public init(tests: XcresultTestResults) {
        let cases = tests.testCases
        let failures = cases.filter { $0.status == .failed }.map(TestFailure.init(failed:))
        self.init(
            title: tests.testNodes.first?.name ?? "tests", result: Self.result(of: cases),
            passedTests: cases.filter { $0.status == .passed }.count, failedTests: failures.count,
            skippedTests: cases.filter { $0.status == .skipped }.count,
            expectedFailures: cases.filter { $0.status == .expectedFailure }.count, testFailures: failures)
    }

    /// The counts (`metrics`) and test failures (`testFailureSummaries`) of the legacy root record. Failures that
    /// name no test (a destination that could not be found is recorded that way) are not test failures and are
    /// left out.
    public init(legacy record: XcresultLegacyInvocationRecord) {
        let total = record.metrics.testsCount ?? record.actions.compactMap(\.metrics.testsCount).reduce(0, +)
        let failed =
            record.metrics.testsFailedCount ?? record.actions.compactMap(\.metrics.testsFailedCount).reduce(0, +)
        let skipped =
            record.metrics.testsSkippedCount ?? record.actions.compactMap(\.metrics.testsSkippedCount).reduce(0, +)
        let failures = record.failedTests.map(TestFailure.init(failed:))
        let result: XcresultTestResult = failed > 0 || !failures.isEmpty ? .failed : (total == 0 ? .unknown : .passed)
        self.init(
            title: record.actions.first?.title ?? "legacy result bundle", result: result,
            passedTests: max(0, total - failed - skipped), failedTests: max(failed, failures.count),
            skippedTests: skipped, totalTestCount: max(total, failures.count), testFailures: failures)
    }

    private static func result(of cases: [TestCaseResult]) -> XcresultTestResult {
        if cases.contains(where: { $0.status == .failed }) { return .failed }
        if cases.isEmpty { return .unknown }
        if cases.allSatisfy({ $0.status == .skipped }) { return .skipped }
        return .passed
    }
}

extension XcresultSummary.TestFailure {
    public init(
        testName: String, targetName: String? = nil, failureText: String, testIdentifierString: String? = nil
    ) {
        self.testName = testName
        self.targetName = targetName
        self.failureText = failureText
        self.testIdentifier = nil
        self.testIdentifierString = testIdentifierString
        self.testIdentifierURL = nil
    }

    /// A failed test result as a summary's failure (`Suite/test()` → test name `test()`).
    init(failed result: TestCaseResult) {
        let name = result.identifier.split(separator: "/").last.map(String.init) ?? result.identifier
        self.init(
            testName: name, failureText: result.failureMessage ?? "failed", testIdentifierString: result.identifier)
    }
}
