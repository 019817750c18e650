/// One schedule of the controller's config: a pipeline, with its ref and parameters, run at the slots of a cron
/// expression or interval.
public struct ScheduleConfig: Sendable, Equatable {
    /// The schedule's name (its key under `schedules:`); the store remembers its last slot by this name.
    public var name: String
    public var pipeline: String
    public var ref: String?
    public var parameters: [String: String]
    public var timing: ScheduleTiming
    public var missed: MissedRunPolicy

    public init(
        name: String, pipeline: String, ref: String? = nil, parameters: [String: String] = [:], timing: ScheduleTiming,
        missed: MissedRunPolicy = .once
    ) {
        self.name = name
        self.pipeline = pipeline
        self.ref = ref
        self.parameters = parameters
        self.timing = timing
        self.missed = missed
    }
}
