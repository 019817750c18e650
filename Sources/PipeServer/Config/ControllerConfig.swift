/// The controller's config file (`controller.yml`): schedules, watches, limits and the grace period of a stop.
///
/// The format is described in `docs/controller.md`; `ControllerConfigLoader` reads it.
public struct ControllerConfig: Sendable, Equatable {
    /// The file as the user named it.
    public var file: String
    public var limits: ControllerLimits
    /// After SIGTERM/SIGINT, how long running runs may go on before they are cancelled.
    public var gracePeriodSeconds: Double
    public var schedules: [ScheduleConfig]
    public var watches: [WatchConfig]

    /// The grace period when the file names none.
    public static let defaultGracePeriodSeconds: Double = 300

    public init(
        file: String, limits: ControllerLimits = ControllerLimits(),
        gracePeriodSeconds: Double = ControllerConfig.defaultGracePeriodSeconds, schedules: [ScheduleConfig] = [],
        watches: [WatchConfig] = []
    ) {
        self.file = file
        self.limits = limits
        self.gracePeriodSeconds = gracePeriodSeconds
        self.schedules = schedules
        self.watches = watches
    }
}
