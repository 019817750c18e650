import Foundation
import PipeBasics

/// The run record: `artifacts/<run id>/summary.json`. Written (atomically) at every state change, before the
/// change is shown, so a crash never loses what a person saw.
public struct RunRecord: Codable, Sendable {
    /// Bumped when a field changes meaning; readers refuse newer majors.
    public static let currentSchemaVersion = 1

    public var schemaVersion: Int = RunRecord.currentSchemaVersion
    public var runID: String
    public var pipeline: String
    public var pipelineFile: String
    public var status: RunStatus
    public var request: Request
    public var commit: String?
    public var resolvedRef: String?
    /// The level of the run's code and why (docs/security.md, "Trust levels"), once the commit is known.
    public var code: CodeTrust?
    public var host: HostFacts?
    public var xcode: String?
    public var simulator: SimulatorChoice?
    public var remoteRunFolder: String?
    public var startedAt: String
    public var finishedAt: String?
    public var durationSeconds: Double?
    /// `pipe run`'s exit code (the merge gate's verdict), once finished.
    public var exitCode: Int32?
    /// Why the run ended early, when it did (checkout failed, no simulator, cancelled).
    public var problem: String?
    public var layers: [LayerRecord]

    public init(
        runID: String, pipeline: String, pipelineFile: String, status: RunStatus, request: Request,
        commit: String? = nil, resolvedRef: String? = nil, code: CodeTrust? = nil, host: HostFacts? = nil,
        xcode: String? = nil,
        simulator: SimulatorChoice? = nil, remoteRunFolder: String? = nil, startedAt: String, finishedAt: String? = nil,
        durationSeconds: Double? = nil, exitCode: Int32? = nil, problem: String? = nil, layers: [LayerRecord],
        schemaVersion: Int = RunRecord.currentSchemaVersion
    ) {
        self.schemaVersion = schemaVersion
        self.runID = runID
        self.pipeline = pipeline
        self.pipelineFile = pipelineFile
        self.status = status
        self.request = request
        self.commit = commit
        self.resolvedRef = resolvedRef
        self.code = code
        self.host = host
        self.xcode = xcode
        self.simulator = simulator
        self.remoteRunFolder = remoteRunFolder
        self.startedAt = startedAt
        self.finishedAt = finishedAt
        self.durationSeconds = durationSeconds
        self.exitCode = exitCode
        self.problem = problem
        self.layers = layers
    }

    public struct Request: Codable, Sendable {
        public var pipeline: String
        public var ref: String
        public var repository: String?
        public var workspace: String
        public var parameters: [String: String]
        public var udid: String?
        public var host: String?
        public var requestedBy: String
        public var reason: String?
        public var trigger: String
        /// `--only`: the layers asked for, when not all.
        public var onlyLayers: [String]?
        /// `pipe rerun`: the run this one runs again.
        public var rerunOf: String?

        public init(
            pipeline: String, ref: String, repository: String? = nil, workspace: String,
            parameters: [String: String] = [:], udid: String? = nil, host: String? = nil, requestedBy: String,
            reason: String? = nil, trigger: String, onlyLayers: [String]? = nil, rerunOf: String? = nil
        ) {
            self.pipeline = pipeline
            self.ref = ref
            self.repository = repository
            self.workspace = workspace
            self.parameters = parameters
            self.udid = udid
            self.host = host
            self.requestedBy = requestedBy
            self.reason = reason
            self.trigger = trigger
            self.onlyLayers = onlyLayers
            self.rerunOf = rerunOf
        }
    }

    public struct HostFacts: Codable, Sendable {
        public var name: String
        public var endpoint: String
        public var keyType: String
        public var fingerprint: String

        public init(
            name: String, endpoint: String, keyType: String, fingerprint: String
        ) {
            self.name = name
            self.endpoint = endpoint
            self.keyType = keyType
            self.fingerprint = fingerprint
        }
    }

    public struct LayerRecord: Codable, Sendable {
        public var name: String
        public var plugin: String
        public var gate: Gate
        public var needs: [String]
        /// `nil` until the layer ends.
        public var outcome: LayerOutcome?
        public var evidence: [String]
        public var attempts: [AttemptRecord]
        public var tests: [TestCaseResult]
        /// Whether its last attempt built warm or cold, and in which build cache; `nil` for a layer that builds
        /// nothing.
        public var build: BuildCacheUse?

        public init(
            name: String, plugin: String, gate: Gate, needs: [String] = [], outcome: LayerOutcome? = nil,
            evidence: [String] = [], attempts: [RunRecord.AttemptRecord] = [], tests: [TestCaseResult] = []
        ) {
            self.name = name
            self.plugin = plugin
            self.gate = gate
            self.needs = needs
            self.outcome = outcome
            self.evidence = evidence
            self.attempts = attempts
            self.tests = tests
        }
    }

    public struct AttemptRecord: Codable, Sendable {
        public var attempt: Int
        public var outcome: LayerOutcome?
        public var evidence: [String]
        /// The artifact text of the exit (`0`, `65`, `signal KILL`, `lost`).
        public var exit: String?
        public var simulatorUDID: String?
        public var startedAt: String
        public var finishedAt: String?
        public var durationSeconds: Double?
        public var facts: [String: String]
        public var artifacts: [ArtifactRecord]

        public init(
            attempt: Int, outcome: LayerOutcome? = nil, evidence: [String] = [], exit: String? = nil,
            simulatorUDID: String? = nil, startedAt: String, finishedAt: String? = nil, durationSeconds: Double? = nil,
            facts: [String: String] = [:], artifacts: [ArtifactRecord] = []
        ) {
            self.attempt = attempt
            self.outcome = outcome
            self.evidence = evidence
            self.exit = exit
            self.simulatorUDID = simulatorUDID
            self.startedAt = startedAt
            self.finishedAt = finishedAt
            self.durationSeconds = durationSeconds
            self.facts = facts
            self.artifacts = artifacts
        }
    }

    /// Writes the record to `url` atomically (temporary file, then rename), so a reader never sees half a record.
    public func write(to url: URL) throws {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        let data = try encoder.encode(self)
        let temporary = url.deletingLastPathComponent().appendingPathComponent(".\(url.lastPathComponent).tmp")
        try data.write(to: temporary)
        guard rename(temporary.path, url.path) == 0 else {
            throw PipeBasicsError.io("could not write \(url.path): \(String(cString: strerror(errno)))")
        }
    }

    public static func read(from url: URL) throws -> RunRecord {
        try JSONDecoder().decode(RunRecord.self, from: Data(contentsOf: url))
    }
}
