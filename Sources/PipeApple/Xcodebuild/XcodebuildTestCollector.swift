import PipeCore

/// Collects the tests a log reports, once each, in the order they first ended, and the runs that came before a
/// test's last one.
///
/// One test can end several times in a log. Reported again by *another kind* of line, it is the same run told
/// twice (in serial runs Swift Testing tests are reported by the testing library and by xcodebuild): the later
/// report only fills in what the first lacked. Reported again by the *same kind* of line, it ran again (a retry of
/// a failed test, a test process restarted after a crash): the earlier run is kept as an earlier run, so a test
/// that failed and then passed is reported flaky, and counts are never doubled.
public struct XcodebuildTestCollector {
    /// How many earlier failed runs are kept per test, and in all: a log of thousands of repetitions must not
    /// grow memory with each, and reports need only a few to show a test was flaky.
    public static let earlierRunsPerTest = 5
    public static let earlierRunsInAll = 5_000

    /// Each test's latest result, in the order tests first ended.
    public private(set) var results: [TestCaseResult] = []
    /// Failed runs before each test's last one, in the order they ended (bounded; passed ones tell nothing more).
    public private(set) var earlierRuns: [TestCaseResult] = []
    private var earlierRunCounts: [String: Int] = [:]
    private var entries: [String: (index: Int, origin: XcodebuildLogEvent.Origin)] = [:]

    public init() {}

    /// The results, once each: when xcodebuild itself reported Swift Testing tests (`Suite/test()` lines), the
    /// testing library's own lines for them (`✔ Test test() passed …`, named without their suite) are the same
    /// runs told twice: they are left out, and only lend their failure message and location.
    ///
    /// Otherwise a failed test the library named `test()` takes its `Suite/test()` name from `qualifiedNames`
    /// (`Failing tests:`) when exactly one of them ends in `/test()`: the bundle names it so, and one test must not
    /// be two in a run's history.
    public func finalResults(xcodebuildReportedSwiftTesting: Bool, qualifiedNames: [String] = []) -> [TestCaseResult] {
        guard xcodebuildReportedSwiftTesting else { return qualified(results, by: qualifiedNames) }
        var library: [String: TestCaseResult] = [:]
        var kept: [TestCaseResult] = []
        for result in results {
            if entries[result.identifier]?.origin == .swiftTesting {
                library[result.identifier] = library[result.identifier] ?? result
            } else {
                kept.append(result)
            }
        }
        return kept.map { result in
            let name = result.identifier.split(separator: "/").last.map(String.init) ?? result.identifier
            guard result.status == .failed, let told = library[name] else { return result }
            var merged = result
            if merged.failureMessage == nil { merged.failureMessage = told.failureMessage }
            if merged.failureLocation == nil { merged.failureLocation = told.failureLocation }
            return merged
        }
    }

    /// The final results for what the log's facts say (`finalResults`, with `Failing tests:` and the crashes that
    /// `Testing failed:` names as the suite-qualified names).
    public func finalResults(reading facts: XcodebuildLogFacts) -> [TestCaseResult] {
        finalResults(
            xcodebuildReportedSwiftTesting: facts.xcodebuildReportedSwiftTesting,
            qualifiedNames: facts.failingTestsListed.items + facts.crashedTestsNamed.items)
    }

    /// Tests named under `Failing tests:`, or as the crash under `Testing failed:`, that no test line reported (a
    /// log that dropped them, a crash): they failed all the same. `logged` is `finalResults(reading:)`.
    public func listedOnly(reading facts: XcodebuildLogFacts, besides logged: [TestCaseResult]) -> [TestCaseResult] {
        var known = Set(results.map(\.identifier) + logged.map(\.identifier))
        var listed: [TestCaseResult] = []
        for name in facts.failingTestsListed.items where known.insert(name).inserted {
            listed.append(
                TestCaseResult(
                    identifier: name, status: .failed,
                    failureMessage: "listed under `Failing tests:`; the log has no line for the test itself"))
        }
        for name in facts.crashedTestsNamed.items where known.insert(name).inserted {
            listed.append(
                TestCaseResult(
                    identifier: name, status: .failed,
                    failureMessage: "its test process crashed (named under `Testing failed:`)"))
        }
        return listed
    }

    /// `results` with the library's suite-less names of failed tests replaced by their one `Suite/test()` match.
    private func qualified(_ results: [TestCaseResult], by names: [String]) -> [TestCaseResult] {
        var byLastPart: [String: Set<String>] = [:]
        for name in names where name.contains("/") {
            byLastPart[String(name.split(separator: "/").last ?? ""), default: []].insert(name)
        }
        guard !byLastPart.isEmpty else { return results }
        let known = Set(results.map(\.identifier))
        var renamed = results
        var unmatched: [Int] = []
        var used: Set<String> = []
        for (index, result) in results.enumerated()
        where result.status == .failed && entries[result.identifier]?.origin == .swiftTesting
            && !result.identifier.contains("/")
        {
            guard let matches = byLastPart[result.identifier], matches.count == 1, let name = matches.first,
                !known.contains(name)
            else {
                unmatched.append(index)
                continue
            }
            renamed[index].identifier = name
            used.insert(name)
        }
        // `Failing tests:` names every failed test: one failed test left on each side (a display name such as
        // `"Test 3"` for `SomeTests/test3()`) is the same test.
        let left = Set(names.filter { $0.contains("/") }).subtracting(used).subtracting(known)
        if unmatched.count == 1, left.count == 1, let index = unmatched.first, let name = left.first {
            renamed[index].identifier = name
        }
        return renamed
    }

    /// Records a finished test; returns `true` when it is news to show (a first report, or a new run).
    public mutating func record(_ result: TestCaseResult, origin: XcodebuildLogEvent.Origin) -> Bool {
        guard let entry = entries[result.identifier] else {
            entries[result.identifier] = (results.count, origin)
            results.append(result)
            return true
        }
        if entry.origin == origin {
            let earlier = results[entry.index]
            let kept = earlierRunCounts[earlier.identifier, default: 0]
            if earlier.status == .failed, kept < Self.earlierRunsPerTest, earlierRuns.count < Self.earlierRunsInAll {
                earlierRuns.append(earlier)
                earlierRunCounts[earlier.identifier] = kept + 1
            }
            results[entry.index] = result
            return true
        }
        var known = results[entry.index]
        if known.failureMessage == nil { known.failureMessage = result.failureMessage }
        if known.failureLocation == nil { known.failureLocation = result.failureLocation }
        if known.durationSeconds == nil { known.durationSeconds = result.durationSeconds }
        if known.target == nil { known.target = result.target }
        results[entry.index] = known
        return false
    }
}
