import PipeCore

/// A run judged against a gate, as the chat shows it.
public struct ChatGateReport: Sendable, Equatable {
    public enum Verdict: String, Sendable, Equatable {
        case passed
        case failed
        /// A layer could not be judged (host-config, infrastructure, cancelled, not run), or the run has not ended.
        case couldNotJudge = "could-not-judge"
        /// Everything else passes; sign-offs are pending.
        case pendingSignoff = "pending-signoff"
    }

    /// One layer of the gate.
    public struct Layer: Sendable, Equatable {
        public var name: String
        public var gate: Gate
        public var outcome: LayerOutcome?
        /// Why it stands as it does.
        public var reason: String

        public init(name: String, gate: Gate, outcome: LayerOutcome?, reason: String) {
            self.name = name
            self.gate = gate
            self.outcome = outcome
            self.reason = reason
        }
    }

    public var runID: String
    public var pipeline: String
    public var gate: Gate
    public var verdict: Verdict
    /// One line: `release gate pending: shortcuts awaits sign-off`.
    public var headline: String
    public var layers: [Layer]

    public init(runID: String, pipeline: String, gate: Gate, verdict: Verdict, headline: String, layers: [Layer]) {
        self.runID = runID
        self.pipeline = pipeline
        self.gate = gate
        self.verdict = verdict
        self.headline = headline
        self.layers = layers
    }
}
