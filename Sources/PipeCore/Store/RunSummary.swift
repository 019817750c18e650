import Foundation
import PipeBasics

/// A run as `pipe runs list` shows it.
public struct RunSummary: Sendable, Equatable {
    public var runID: String
    public var pipeline: String
    public var status: RunStatus
    public var startedAt: Date
    public var finishedAt: Date?
    public var durationSeconds: Double?
    public var exitCode: Int32?
    public var commit: String?
    public var hostName: String?
    public var requestedBy: String
    public var trigger: String
    public var problem: String?
    public var cancellationRequested: Bool
    /// The layers in run order with their outcomes (`nil` while not ended).
    public var layers: [Layer]

    public struct Layer: Sendable, Equatable {
        public var name: String
        public var outcome: LayerOutcome?

        public init(name: String, outcome: LayerOutcome?) {
            self.name = name
            self.outcome = outcome
        }
    }

    public init(
        runID: String, pipeline: String, status: RunStatus, startedAt: Date, finishedAt: Date?,
        durationSeconds: Double?, exitCode: Int32?, commit: String?, hostName: String?, requestedBy: String,
        trigger: String, problem: String?, cancellationRequested: Bool, layers: [Layer]
    ) {
        self.runID = runID
        self.pipeline = pipeline
        self.status = status
        self.startedAt = startedAt
        self.finishedAt = finishedAt
        self.durationSeconds = durationSeconds
        self.exitCode = exitCode
        self.commit = commit
        self.hostName = hostName
        self.requestedBy = requestedBy
        self.trigger = trigger
        self.problem = problem
        self.cancellationRequested = cancellationRequested
        self.layers = layers
    }
}
