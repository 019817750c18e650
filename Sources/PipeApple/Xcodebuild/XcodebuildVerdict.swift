import PipeCore

/// A layer outcome with the lines that decided it, quoted so a person can check the verdict.
public struct XcodebuildVerdict: Equatable, Sendable {
    public var outcome: LayerOutcome
    /// The deciding facts first: the exit, the banner, the named failures or error lines.
    public var evidence: [String]
    /// The `TestRunnerFailure` text that made the verdict `infrastructure`: the runner never got to the tests.
    public var testRunnerFailure: String?

    public init(outcome: LayerOutcome, evidence: [String], testRunnerFailure: String? = nil) {
        self.outcome = outcome
        self.evidence = evidence
        self.testRunnerFailure = testRunnerFailure
    }
}
