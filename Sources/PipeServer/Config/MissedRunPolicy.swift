/// What a schedule does about the slots that passed while no controller was running.
public enum MissedRunPolicy: String, Sendable, Equatable, CaseIterable {
    /// One run for all of them (the newest slot), as soon as the controller is back.
    case once
    /// None: the next run is at the next slot.
    case skip
}
