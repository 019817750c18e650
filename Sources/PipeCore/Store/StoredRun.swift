import Foundation
import PipeBasics

/// One run in full: its record as `summary.json` holds it, plus what only the store knows.
public struct StoredRun: Sendable {
    public var record: RunRecord
    /// The process that drove the run (`nil` for runs recorded before owners were).
    public var owner: RunOwner?
    public var cancellation: CancellationRequest?
    /// When the run was found interrupted, if it was.
    public var interruptedAt: Date?
    public var signoffs: [Signoff]
    /// Artifacts of the run itself, outside any layer (those of attempts are in `record`).
    public var runArtifacts: [ArtifactRecord]
    /// When each layer began and ended, by layer name (a skipped layer never began).
    public var layerTimes: [String: LayerTimes]
    /// The last write to this run.
    public var updatedAt: Date

    public struct LayerTimes: Sendable, Equatable {
        public var startedAt: Date?
        public var finishedAt: Date?

        public init(startedAt: Date?, finishedAt: Date?) {
            self.startedAt = startedAt
            self.finishedAt = finishedAt
        }
    }

    public init(
        record: RunRecord, owner: RunOwner?, cancellation: CancellationRequest?, interruptedAt: Date?,
        signoffs: [Signoff], runArtifacts: [ArtifactRecord], layerTimes: [String: LayerTimes], updatedAt: Date
    ) {
        self.record = record
        self.owner = owner
        self.cancellation = cancellation
        self.interruptedAt = interruptedAt
        self.signoffs = signoffs
        self.runArtifacts = runArtifacts
        self.layerTimes = layerTimes
        self.updatedAt = updatedAt
    }

    /// Every artifact path of the run (attempts' and the run's own).
    public var allArtifacts: [ArtifactRecord] {
        record.layers.flatMap { $0.attempts.flatMap(\.artifacts) } + runArtifacts
    }
}

extension StoredRun {
    /// The machine that wrote the run's artifacts folder when it is another one than this (a controller of a
    /// cluster, a `pipe run` elsewhere): its files are there, unless the machines share the folder.
    public var artifactsMachineElsewhere: String? {
        guard let machine = owner?.hostname, machine != RunOwner.localHostname() else { return nil }
        return machine
    }
}
