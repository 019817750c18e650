import Foundation
import PipeBasics

/// A run found `running` with a dead owner and marked `interrupted`.
public struct InterruptedRun: Sendable, Equatable {
    public var runID: String
    public var pipeline: String
    public var owner: RunOwner
    /// The run's last recorded write: the owner died after it.
    public var lastActivity: Date
    /// Layers that had not ended and now end `cancelled`.
    public var cancelledLayers: [String]
    /// The host and folder to clean up, when the run had reached a host.
    public var hostName: String?
    public var remoteRunFolder: String?
    /// The artifacts it had pulled back: kept and listed.
    public var artifacts: [ArtifactRecord]

    public init(
        runID: String, pipeline: String, owner: RunOwner, lastActivity: Date, cancelledLayers: [String],
        hostName: String?, remoteRunFolder: String?, artifacts: [ArtifactRecord]
    ) {
        self.runID = runID
        self.pipeline = pipeline
        self.owner = owner
        self.lastActivity = lastActivity
        self.cancelledLayers = cancelledLayers
        self.hostName = hostName
        self.remoteRunFolder = remoteRunFolder
        self.artifacts = artifacts
    }
}
