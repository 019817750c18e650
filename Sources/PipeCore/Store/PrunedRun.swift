import Foundation
import PipeBasics

/// One run `prune` removed.
public struct PrunedRun: Sendable, Equatable {
    public var runID: String
    public var pipeline: String
    public var status: RunStatus
    public var startedAt: Date
    /// Files and folders (relative to the project folder) the caller deletes.
    public var artifacts: [ArtifactRecord]
    /// A remote folder not yet reported cleaned: the hosts' clean-up still has to remove it.
    public var uncleanedRemoteFolder: RemoteCleanup?

    public init(
        runID: String, pipeline: String, status: RunStatus, startedAt: Date, artifacts: [ArtifactRecord],
        uncleanedRemoteFolder: RemoteCleanup?
    ) {
        self.runID = runID
        self.pipeline = pipeline
        self.status = status
        self.startedAt = startedAt
        self.artifacts = artifacts
        self.uncleanedRemoteFolder = uncleanedRemoteFolder
    }

    public var artifactBytes: Int64 { artifacts.reduce(0) { $0 + ($1.bytes ?? 0) } }
}
