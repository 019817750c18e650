import Foundation

/// What the store remembers of a schedule, by name: when the controller first saw it and the last slot it fired
/// (or skipped), so that no slot fires twice, across restarts.
public struct ScheduleState: Sendable, Equatable {
    public var name: String
    /// When a controller first saw the schedule: slots before it are not "missed".
    public var baseline: Date
    /// The newest slot fired or skipped.
    public var lastSlot: Date?
    /// The run queued for `lastSlot`, if one was.
    public var lastRunID: String?

    public init(name: String, baseline: Date, lastSlot: Date?, lastRunID: String?) {
        self.name = name
        self.baseline = baseline
        self.lastSlot = lastSlot
        self.lastRunID = lastRunID
    }
}
