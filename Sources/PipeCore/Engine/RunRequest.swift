import Foundation
import PipeBasics

/// What a trigger (the CLI, the controller, a chat command) asks the engine to run.
public struct RunRequest: Sendable {
    public var pipeline: Pipeline
    /// The project folder: pipelines, `.pipe/` state and `artifacts/` live here.
    public var projectDirectory: URL
    /// Who asked (login name, chat user) and why, for the run record.
    public var requestedBy: String
    public var reason: String?
    /// `cli`, `controller`, `chat`.
    public var trigger: String
    /// A UDID from `--udid` or `SIM_UDID`: overrides the pipeline's simulator criteria.
    public var udidOverride: String?
    /// Where the override came from, for messages (`--udid`, `SIM_UDID`).
    public var udidOverrideSource: String?
    /// A host name from `--host`: overrides the pipeline's host selection.
    public var hostOverride: String?
    /// `--only`: the layers to run; the others are recorded as not run. `nil` runs every layer.
    public var onlyLayers: [String]?
    /// `pipe rerun`: the run this one runs again (at its commit).
    public var rerunOf: String?
    /// `pipe rerun`: layers that are not run again keep their outcome from the earlier run, so this run's gates
    /// are judged on each layer's latest outcome.
    public var carriedOver: [String: CarriedOutcome]
    /// The values of the pipeline's secrets, read on the coordinator; only in memory.
    public var secrets: SecretValues
    /// Why the pipeline's secrets are withheld from this run (a fork's pull request under `without-secrets`): the
    /// layers that need one end `skipped` with it. `nil`: the secrets are given.
    public var secretsWithheld: String?
    /// A run id chosen before the run starts (the controller's queue gives one at enqueueing); `nil`: the engine
    /// draws one when the run starts.
    public var runID: RunID?
    /// The project's protected refs (`trusted-refs:` of project.yml): a commit reachable from one is `release` code.
    public var trustedRefs: [TrustedRefPattern]
    /// Where the trigger says the code comes from; a fork's pull request is `.outside`. The pipeline's own
    /// `repository.origin` can only lower it.
    public var codeOrigin: CodeOrigin

    public init(
        pipeline: Pipeline, projectDirectory: URL, requestedBy: String, reason: String? = nil, trigger: String = "cli",
        udidOverride: String? = nil, udidOverrideSource: String? = nil, hostOverride: String? = nil,
        onlyLayers: [String]? = nil, rerunOf: String? = nil, carriedOver: [String: CarriedOutcome] = [:],
        secrets: SecretValues = SecretValues(), runID: RunID? = nil, trustedRefs: [TrustedRefPattern] = [],
        codeOrigin: CodeOrigin = .project
    ) {
        self.pipeline = pipeline
        self.projectDirectory = projectDirectory
        self.requestedBy = requestedBy
        self.reason = reason
        self.trigger = trigger
        self.udidOverride = udidOverride
        self.udidOverrideSource = udidOverrideSource
        self.hostOverride = hostOverride
        self.onlyLayers = onlyLayers
        self.rerunOf = rerunOf
        self.carriedOver = carriedOver
        self.secrets = secrets
        self.runID = runID
        self.trustedRefs = trustedRefs
        self.codeOrigin = codeOrigin
    }

    /// Where the run's code comes from: outside the project when the trigger or the pipeline says so.
    public var effectiveOrigin: CodeOrigin {
        if case .outside = codeOrigin { return codeOrigin }
        return pipeline.repository.origin
    }

    /// The layers this run runs: the pipeline's, less those `--only` leaves out and those carried over.
    public var runLayers: [LayerSpec] {
        pipeline.layers.filter { layer in
            carriedOver[layer.name] == nil && (onlyLayers.map { $0.contains(layer.name) } ?? true)
        }
    }
}

/// A layer outcome taken over from an earlier run by `pipe rerun`.
public struct CarriedOutcome: Sendable, Equatable {
    public var outcome: LayerOutcome
    public var evidence: [String]
    public var fromRun: String

    public init(outcome: LayerOutcome, evidence: [String], fromRun: String) {
        self.outcome = outcome
        self.evidence = evidence
        self.fromRun = fromRun
    }
}
