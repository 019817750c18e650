import Foundation
import PipeBasics

/// Which runs `listRuns` returns.
public struct RunFilter: Sendable, Equatable {
    public var pipeline: String?
    /// Any of these statuses; empty means all.
    public var statuses: Set<RunStatus>
    /// Runs that started at or after this time.
    public var since: Date?
    /// At most this many runs (the newest).
    public var limit: Int?

    public init(pipeline: String? = nil, statuses: Set<RunStatus> = [], since: Date? = nil, limit: Int? = nil) {
        self.pipeline = pipeline
        self.statuses = statuses
        self.since = since
        self.limit = limit
    }
}
