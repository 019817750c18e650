import Foundation

/// What a schedule should do now (`ScheduleEvaluator.decide`).
public enum ScheduleDecision: Sendable, Equatable {
    /// Nothing is due; the next slot, if any.
    case wait(next: Date?)
    /// Run once for `slot`. `folded` slots before it (missed, or passed while the controller was busy) are
    /// covered by this one run.
    case fire(slot: Date, folded: Int)
    /// Slots passed while no controller was running and the schedule says `missed: skip`: record the newest as
    /// done without a run.
    case skipMissed(latest: Date, count: Int)
}
