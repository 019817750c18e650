/// A test retry that ran only the failed tests of the attempt before.
extension RunEngine {
    /// Merges the retry's tests into the layer's `previous` ones. A retry that passed while a failed test did not
    /// run again (a plugin that ran other tests) proves nothing for that test: the attempt's tests failed.
    static func mergeRetriedTests(previous: [TestCaseResult], into result: inout LayerResult) -> TestRetryMerge {
        let merge = TestRetryMerge(previous: previous, retry: result.tests)
        if [.passed, .flaky].contains(result.outcome), let missing = merge.failedAndNotRetried.first {
            result.outcome = .testsFailed
            let others = merge.failedAndNotRetried.count - 1
            result.evidence.append(
                "\(missing.qualifiedIdentifier) failed and the retry did not run it again"
                    + (others > 0 ? " (nor \(others) other failed test\(others == 1 ? "" : "s"))" : ""))
        }
        return merge
    }
}
