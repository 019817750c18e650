import Foundation
import PipeCore

/// Decides, without side effects, whether a schedule fires now: from the last slot the store recorded for it, when
/// this controller started, and the time now.
///
/// A slot at or after the controller's start is on time: it fires (several that passed during one slow tick fire
/// once). Slots before the start passed while no controller ran: `missed: once` fires one run for the newest of
/// them, `missed: skip` records them without a run. A schedule never seen before starts counting from the moment
/// it was first seen (`baseline`), so adding a schedule does not fire for its past.
public enum ScheduleEvaluator {
    public static func decide(
        timing: ScheduleTiming, policy: MissedRunPolicy, state: ScheduleState, controllerStartedAt: Date, now: Date
    ) -> ScheduleDecision {
        let from = state.lastSlot ?? state.baseline
        let (slots, total) = timing.slots(after: from, upTo: now, limit: 1)
        guard let latest = slots.last else { return .wait(next: timing.nextFire(after: max(from, now))) }
        if latest >= controllerStartedAt { return .fire(slot: latest, folded: total - 1) }
        switch policy {
        case .once: return .fire(slot: latest, folded: total - 1)
        case .skip: return .skipMissed(latest: latest, count: total)
        }
    }
}
