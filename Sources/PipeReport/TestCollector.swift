import PipeApple
import PipeCore

/// Collects the tests a log reports, once each, in the order they first ended, and the runs that came before a
/// test's last one.
///
/// One test can end several times in a log. Reported again by *another kind* of line, it is the same run told
/// twice (in serial runs Swift Testing tests are reported by the testing library and by xcodebuild): the later
/// report only fills in what the first lacked. Reported again by the *same kind* of line, it ran again (a retry of
/// a failed test, a test process restarted after a crash): the earlier run is kept as an earlier run, so a test
/// that failed and then passed is reported flaky, and counts are never doubled.
struct TestCollector {
    private(set) var results: [TestCaseResult] = []
    /// Runs before each test's last one, in the order they ended.
    private(set) var earlierRuns: [TestCaseResult] = []
    private var entries: [String: (index: Int, origin: XcodebuildLogEvent.Origin)] = [:]

    /// Records a finished test; returns `true` when it is news to show (a first report, or a new run).
    mutating func record(_ result: TestCaseResult, origin: XcodebuildLogEvent.Origin) -> Bool {
        guard let entry = entries[result.identifier] else {
            entries[result.identifier] = (results.count, origin)
            results.append(result)
            return true
        }
        if entry.origin == origin {
            earlierRuns.append(results[entry.index])
            results[entry.index] = result
            return true
        }
        var known = results[entry.index]
        if known.failureMessage == nil { known.failureMessage = result.failureMessage }
        if known.failureLocation == nil { known.failureLocation = result.failureLocation }
        if known.durationSeconds == nil { known.durationSeconds = result.durationSeconds }
        results[entry.index] = known
        return false
    }
}
