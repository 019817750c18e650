import PipeSpec

/// The keys of the controller's config and their types: `ControllerConfigLoader` checks keys against these, and
/// `pipe schema controller` writes them (with the `http:`, `chatops:` and `web:` sections) as a JSON Schema.
public enum ControllerConfigShape {
    static let entryName = "^[A-Za-z0-9._-]+$"
    static let limits = MappingShape(
        "How many runs the controller starts at once",
        [
            KeyShape("runs", .integer(1...Int.max), "runs at once"),
            KeyShape("per-pipeline", .integer(1...Int.max), "runs at once of any one pipeline"),
            KeyShape("pipelines", .named(.integer(1...Int.max)), "runs at once of the named pipelines"),
        ])
    static let schedule = MappingShape(
        "A pipeline run on a cron schedule",
        [
            KeyShape("pipeline", .nonEmptyText, required: true, "a pipeline of pipelines/, by name"),
            KeyShape(
                "cron", .nonEmptyText, required: true,
                "five fields such as \"0 2 * * *\", @hourly, @daily, @weekly, or \"@every 30s\""),
            KeyShape("time-zone", .nonEmptyText, "a time zone name such as Europe/Paris (default UTC)"),
            KeyShape("ref", .nonEmptyText, "the branch, tag or commit to run"),
            KeyShape("parameters", .textMap, "the pipeline's parameters"),
            KeyShape("missed", .choice(MissedRunPolicy.allCases.map(\.rawValue)), "what to do about missed slots"),
        ])
    static let watch = MappingShape(
        "A pipeline run when a branch moves",
        [
            KeyShape("pipeline", .nonEmptyText, required: true, "a pipeline of pipelines/, by name"),
            KeyShape("branches", .texts, required: true, "branch patterns such as main, release/* or feature/**"),
            KeyShape("interval", .duration, "how often the branches are polled (default 60s)"),
            KeyShape("parameters", .textMap, "the pipeline's parameters"),
        ])
    /// The controller's own top-level keys (other parts of Pipe add sections: `ControllerConfigLoader`).
    public static let top = MappingShape(
        "The controller's config (docs/controller.md)",
        [
            KeyShape("limits", .mapping(limits), "how many runs start at once"),
            KeyShape("grace-period", .duration, "how long running runs get to finish on stop"),
            KeyShape(
                "session-idle", .either([.duration, .integer(0...0), .choice(["0", "0s", "0m", "0h"])]),
                "how long an idle SSH session is kept for the next run (0: none)"),
            KeyShape("store", .nonEmptyText, "a store path, or a PostgreSQL URL without a password"),
            KeyShape("schedules", .named(.mapping(schedule), keyPattern: entryName), "schedules, by name"),
            KeyShape("watches", .named(.mapping(watch), keyPattern: entryName), "branch watches, by name"),
        ])
}
