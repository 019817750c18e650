import PipeCore

/// What `ReportAssembler` made of its inputs.
public struct ReportResult {
    /// The record, as a run would have written it for one layer (same schema as `summary.json`).
    public var record: RunRecord
    /// The layer's earlier test runs (a test that ran again after failing), for the report writers.
    public var earlierRuns: [String: [TestCaseResult]]
    /// The verdict: 0 passed (or flaky), 1 tests or build failed, 3 host configuration or infrastructure.
    public var exitCode: PipeExitCode
    /// Inputs not read in full.
    public var problems: [InputProblem]
}
