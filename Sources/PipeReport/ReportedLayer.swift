import PipeCore

/// One layer as the reports show it: its record, its tests with their earlier failures, and counts.
struct ReportedLayer {
    let record: RunRecord.LayerRecord
    let tests: [ReportedTest]

    init(_ record: RunRecord.LayerRecord, earlierRuns: [TestCaseResult]) {
        self.record = record
        var failures: [String: [TestCaseResult]] = [:]
        for run in earlierRuns where run.status == .failed { failures[run.identifier, default: []].append(run) }
        tests = record.tests.map { ReportedTest(result: $0, earlierFailures: failures[$0.identifier] ?? []) }
    }

    var passedCount: Int { tests.filter { $0.result.status == .passed && !$0.isFlaky }.count }
    var failedCount: Int { tests.filter { $0.result.status == .failed }.count }
    var skippedCount: Int { tests.filter { $0.result.status == .skipped }.count }
    var expectedFailureCount: Int { tests.filter { $0.result.status == .expectedFailure && !$0.isFlaky }.count }
    var flakyCount: Int { tests.filter(\.isFlaky).count }

    /// The time of all attempts when the record has it, else the sum of the tests' durations.
    var seconds: Double? {
        let attempts = record.attempts.compactMap(\.durationSeconds)
        if !attempts.isEmpty { return attempts.reduce(0, +) }
        let durations = tests.compactMap(\.result.durationSeconds)
        return durations.isEmpty ? nil : durations.reduce(0, +)
    }

    /// The last attempt's exit (`0`, `65`, `signal KILL`, …).
    var exit: String? { record.attempts.last?.exit }

    /// Whether the outcome is told by the tests alone: passed or flaky with tests, or tests-failed with a failed
    /// test. Otherwise reports add a line for the layer itself (a build failure, a host problem, a skip).
    var outcomeIsExplainedByTests: Bool {
        switch record.outcome {
        case .passed?, .flaky?: return !tests.isEmpty
        case .testsFailed?: return failedCount > 0
        default: return false
        }
    }

    /// "12 passed, 1 failed, 2 skipped, 1 flaky", or nil without tests.
    var countsText: String? {
        guard !tests.isEmpty else { return nil }
        var parts = ["\(passedCount) passed"]
        if failedCount > 0 { parts.append("\(failedCount) failed") }
        if flakyCount > 0 { parts.append("\(flakyCount) flaky") }
        if skippedCount > 0 { parts.append("\(skippedCount) skipped") }
        if expectedFailureCount > 0 {
            parts.append("\(expectedFailureCount) expected failure\(expectedFailureCount == 1 ? "" : "s")")
        }
        return parts.joined(separator: ", ")
    }

    /// Layers of a record with the earlier runs given for them.
    static func layers(of record: RunRecord, earlierRuns: [String: [TestCaseResult]]) -> [ReportedLayer] {
        record.layers.map { ReportedLayer($0, earlierRuns: earlierRuns[$0.name] ?? []) }
    }
}
