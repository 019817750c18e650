/// The controller's config file (`controller.yml`): schedules, watches, limits, the grace period of a stop and how
/// long an SSH session may wait for the next run.
///
/// The format is described in `docs/controller.md`; `ControllerConfigLoader` reads it.
public struct ControllerConfig: Sendable, Equatable {
    /// The file as the user named it.
    public var file: String
    public var limits: ControllerLimits
    /// After SIGTERM/SIGINT, how long running runs may go on before they are cancelled.
    public var gracePeriodSeconds: Double
    /// How long an SSH session, logged in for a run, is kept for the next run to the same host; 0 closes every
    /// session when its run ends (as `pipe run` does).
    public var sessionIdleSeconds: Double
    public var schedules: [ScheduleConfig]
    public var watches: [WatchConfig]
    /// The run store, as `store:` names it (a path or a `postgres://` URL); `nil` for the default. `--store` and
    /// `PIPE_STORE` win over it.
    public var store: String?

    /// The grace period when the file names none.
    public static let defaultGracePeriodSeconds: Double = 300
    /// How long a session is kept idle when the file names no `session-idle`.
    public static let defaultSessionIdleSeconds: Double = 60

    public init(
        file: String, limits: ControllerLimits = ControllerLimits(),
        gracePeriodSeconds: Double = ControllerConfig.defaultGracePeriodSeconds,
        sessionIdleSeconds: Double = ControllerConfig.defaultSessionIdleSeconds, schedules: [ScheduleConfig] = [],
        watches: [WatchConfig] = []
    ) {
        self.file = file
        self.limits = limits
        self.gracePeriodSeconds = gracePeriodSeconds
        self.sessionIdleSeconds = sessionIdleSeconds
        self.schedules = schedules
        self.watches = watches
    }
}
