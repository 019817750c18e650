import PipeCore

/// A test as a report shows it: its final result, and the failures of its earlier runs (earlier attempts of the
/// layer, or earlier repetitions of the test), which make a passing test flaky.
struct ReportedTest {
    var result: TestCaseResult
    /// Earlier runs that failed, oldest first.
    var earlierFailures: [TestCaseResult]

    /// Failed before, passed in the end.
    var isFlaky: Bool {
        (result.status == .passed || result.status == .expectedFailure) && !earlierFailures.isEmpty
    }

    /// `Suite/Inner/test()` → (`Suite/Inner`, `test()`); a test without a suite is its own.
    var suiteAndName: (suite: String?, name: String) {
        guard let slash = result.identifier.lastIndex(of: "/") else { return (nil, result.identifier) }
        let suite = String(result.identifier[..<slash])
        return (suite.isEmpty ? nil : suite, String(result.identifier[result.identifier.index(after: slash)...]))
    }

    /// `File.swift:42` → (`File.swift`, 42).
    static func fileAndLine(_ location: String?) -> (file: String, line: Int?)? {
        guard let location, !location.isEmpty else { return nil }
        let parts = location.split(separator: ":", omittingEmptySubsequences: false)
        guard parts.count >= 2, let line = Int(parts[1]) else { return (location, nil) }
        return (String(parts[0]), line)
    }
}
