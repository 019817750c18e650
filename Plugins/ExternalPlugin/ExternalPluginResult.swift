import PipeCore

/// The one `result` message a plugin writes at the end.
public struct ExternalPluginResult: Sendable, Equatable {
    public var outcome: LayerOutcome
    public var evidence: [String]
    public var facts: [String: String]
    /// Files the plugin wrote into its artifacts folder, relative to it.
    public var artifacts: [Artifact]

    public struct Artifact: Sendable, Equatable {
        public var path: String
        public var kind: ArtifactRecord.Kind

        public init(path: String, kind: ArtifactRecord.Kind) {
            self.path = path
            self.kind = kind
        }
    }

    public init(outcome: LayerOutcome, evidence: [String], facts: [String: String], artifacts: [Artifact]) {
        self.outcome = outcome
        self.evidence = evidence
        self.facts = facts
        self.artifacts = artifacts
    }
}
