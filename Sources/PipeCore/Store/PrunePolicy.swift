import Foundation
import PipeBasics

/// Which runs `prune` removes. With both limits, a run goes only when both allow it.
public struct PrunePolicy: Sendable, Equatable {
    /// Keep this many of the newest ended runs (runs in progress are always kept and not counted).
    public var keepLatest: Int?
    /// Remove only runs that started before this time.
    public var olderThan: Date?
    /// Only runs of this pipeline (with `keepLatest`: the newest of this pipeline are kept).
    public var pipeline: String?
    /// Report what would go without removing anything.
    public var dryRun: Bool

    public init(keepLatest: Int? = nil, olderThan: Date? = nil, pipeline: String? = nil, dryRun: Bool = false) {
        self.keepLatest = keepLatest
        self.olderThan = olderThan
        self.pipeline = pipeline
        self.dryRun = dryRun
    }
}
