import Foundation

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

    public init(
        pipeline: Pipeline, projectDirectory: URL, requestedBy: String, reason: String? = nil, trigger: String = "cli",
        udidOverride: String? = nil, udidOverrideSource: String? = nil, hostOverride: String? = nil
    ) {
        self.pipeline = pipeline
        self.projectDirectory = projectDirectory
        self.requestedBy = requestedBy
        self.reason = reason
        self.trigger = trigger
        self.udidOverride = udidOverride
        self.udidOverrideSource = udidOverrideSource
        self.hostOverride = hostOverride
    }
}
