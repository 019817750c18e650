/// A test retry that ran only the failed tests, merged into the layer's tests: each test's result is its last
/// attempt's, so the layer's counts come from its tests, never from attempts added up.
public struct TestRetryMerge: Equatable, Sendable {
    /// The layer's tests: the earlier attempts' in their order, each retried one replaced by its retry's result,
    /// then any test only the retry ran.
    public var tests: [TestCaseResult]
    /// The earlier results the retry replaced (with the tool's own earlier runs, they make a test flaky in reports).
    public var replaced: [TestCaseResult]
    /// Tests that failed before and were not run again: the retry's pass cannot stand for them.
    public var failedAndNotRetried: [TestCaseResult]

    public init(previous: [TestCaseResult], retry: [TestCaseResult]) {
        var retryByKey: [String: TestCaseResult] = [:]
        var retryByIdentifier: [String: [TestCaseResult]] = [:]
        for test in retry {
            retryByKey[test.qualifiedIdentifier] = test
            retryByIdentifier[test.identifier, default: []].append(test)
        }
        var used: Set<String> = []
        tests = []
        replaced = []
        failedAndNotRetried = []
        for earlier in previous {
            // A log without the module names no target; the identifier alone matches when it is unambiguous.
            let candidates = retryByIdentifier[earlier.identifier] ?? []
            let match =
                retryByKey[earlier.qualifiedIdentifier]
                ?? ((earlier.target == nil || candidates.allSatisfy { $0.target == nil }) && candidates.count == 1
                    ? candidates[0] : nil)
            if let match, !used.contains(match.qualifiedIdentifier) {
                used.insert(match.qualifiedIdentifier)
                replaced.append(earlier)
                tests.append(match)
            } else {
                tests.append(earlier)
                if earlier.status == .failed { failedAndNotRetried.append(earlier) }
            }
        }
        tests += retry.filter { !used.contains($0.qualifiedIdentifier) }
    }
}
