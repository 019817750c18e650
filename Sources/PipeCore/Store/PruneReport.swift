import Foundation
import PipeBasics

/// What `prune` removed (or, with `dryRun`, would remove).
public struct PruneReport: Sendable, Equatable {
    public var removed: [PrunedRun]
    public var dryRun: Bool

    public init(removed: [PrunedRun], dryRun: Bool) {
        self.removed = removed
        self.dryRun = dryRun
    }

    /// The recorded size of every removed artifact (what deleting the files frees, as far as the store knows).
    public var artifactBytes: Int64 { removed.reduce(0) { $0 + $1.artifactBytes } }
}
