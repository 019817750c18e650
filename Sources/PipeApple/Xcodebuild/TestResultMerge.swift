import PipeCore

/// Joins the tests read from the log with those read from the result bundle (`get test-results tests`).
///
/// The bundle names every test `Suite/test()`; a serial Swift Testing run prints passing tests without their
/// suite, so the log alone would name them differently from the bundle and from other runs, splitting one test's
/// history in two. The log's results stand (they were seen as they happened, retries included); the bundle gives
/// them their full name, fills a missing failure location, and adds the tests the log never printed. A short name
/// that two suites share keeps the log's name, and neither bundle test is added: either could be the log's, and a
/// merge never changes how many tests the log counted.
public enum TestResultMerge {
    public static func merge(log: [TestCaseResult], bundle: [TestCaseResult]) -> [TestCaseResult] {
        guard !bundle.isEmpty else { return log }
        var bundleByName: [String: TestCaseResult] = [:]
        var bundleByLastPart: [String: [TestCaseResult]] = [:]
        for test in bundle {
            bundleByName[test.identifier] = bundleByName[test.identifier] ?? test
            if let slash = test.identifier.lastIndex(of: "/") {
                let last = String(test.identifier[test.identifier.index(after: slash)...])
                bundleByLastPart[last, default: []].append(test)
            }
        }
        var merged: [TestCaseResult] = []
        var named: Set<String> = []
        var ambiguousShortNames: Set<String> = []
        for var test in log {
            if bundleByName[test.identifier] == nil, !test.identifier.contains("/"),
                let candidates = bundleByLastPart[test.identifier], candidates.count == 1
            {
                test.identifier = candidates[0].identifier
            } else if bundleByName[test.identifier] == nil, !test.identifier.contains("/") {
                ambiguousShortNames.insert(test.identifier)
            }
            if let fromBundle = bundleByName[test.identifier] {
                if test.failureLocation == nil { test.failureLocation = fromBundle.failureLocation }
                if test.failureMessage == nil { test.failureMessage = fromBundle.failureMessage }
                if test.durationSeconds == nil { test.durationSeconds = fromBundle.durationSeconds }
                if test.target == nil { test.target = fromBundle.target }
            }
            named.insert(test.identifier)
            merged.append(test)
        }
        for test in bundle where !named.contains(test.identifier) {
            named.insert(test.identifier)
            if let slash = test.identifier.lastIndex(of: "/"),
                ambiguousShortNames.contains(String(test.identifier[test.identifier.index(after: slash)...]))
            {
                continue
            }
            merged.append(test)
        }
        return merged
    }
}
