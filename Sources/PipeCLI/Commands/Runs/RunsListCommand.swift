import Foundation
import PipeBasics
import PipeCore

/// `pipe runs list`: recent runs, newest first, as a table or JSON.
enum RunsListCommand {
    static let defaultLimit = 20

    static let spec = CommandSpec(
        name: "list",
        summary: "List runs, newest first.",
        discussion: """
            One line per run: id, pipeline, status, exit code, commit, host, start (UTC), duration and who \
            asked. A run still in progress shows how long it has been running; one whose cancellation was asked \
            for shows `running (cancelling)`. --json prints a JSON array with the same runs and every field, \
            for scripts (keys: runID, pipeline, status, exitCode, commit, host, startedAt, finishedAt, \
            durationSeconds, requestedBy, trigger, problem, cancellationRequested, layers).

            Examples:
              pipe runs list
              pipe runs list --pipeline app-intents --status finished,cancelled --since 3d
              pipe runs list --since 2026-11-29 --limit all --json
            """,
        options: [
            .value("pipeline", short: "p", help: "Only runs of this pipeline."),
            .value(
                "status", short: "s",
                help: "Only runs with these statuses, comma-separated: queued, running, finished, cancelled, "
                    + "interrupted."),
            .value(
                "since", valueName: "when",
                help: "Only runs started at or after this: 2026-11-29, 2026-11-29T14:00:00Z, or an age (30m, 2h, 3d)."),
            .value("limit", short: "n", valueName: "n", help: "At most this many runs (default 20), or `all`."),
            .flag("json", help: "Print a JSON array instead of the table."),
        ])

    static func execute(_ session: RunsSession) throws -> Int32 {
        let arguments = session.arguments
        let now = Date()
        let filter = RunFilter(
            pipeline: arguments.string("pipeline"), statuses: try statuses(session), since: try session.time("since"),
            limit: try session.limit(default: defaultLimit))
        let store = try session.store
        // One more than asked, to say whether there are more.
        var probe = filter
        probe.limit = filter.limit.map { $0 + 1 }
        var runs = try store.listRuns(probe)
        let more = filter.limit.map { runs.count > $0 } ?? false
        if let limit = filter.limit { runs = Array(runs.prefix(limit)) }

        if arguments.flag("json") {
            session.console.out(try RunsJSON.text(runs.map(RunsJSON.summary)))
            return 0
        }
        guard !runs.isEmpty else {
            var message = "no runs" + (filter == RunFilter(limit: filter.limit) ? " yet" : " match")
            if let hint = session.pipelineHint(filter.pipeline) { message += " (\(hint))" }
            session.console.err(message + "\n")
            return 0
        }
        let rows = runs.map { run -> [String] in
            var status = run.status.rawValue
            if run.status == .running && run.cancellationRequested { status = "running (cancelling)" }
            let duration =
                run.status == .running
                ? RunsFormatting.duration(now.timeIntervalSince(run.startedAt)) + " so far"
                : RunsFormatting.duration(run.durationSeconds)
            return [
                run.runID, run.pipeline, status, run.exitCode.map { "\($0)" } ?? "-",
                RunsFormatting.shortCommit(run.commit), run.hostName ?? "-", RunsFormatting.time(run.startedAt),
                duration, run.requestedBy + (run.trigger == "cli" || run.trigger.isEmpty ? "" : " (\(run.trigger))"),
            ]
        }
        session.console.out(
            RunsFormatting.table(
                header: ["RUN", "PIPELINE", "STATUS", "EXIT", "COMMIT", "HOST", "STARTED (UTC)", "DURATION", "BY"],
                rows: rows))
        if more, let limit = filter.limit {
            session.console.err("showing the \(limit) newest; --limit <n> or --limit all shows more\n")
        }
        return 0
    }

    /// `--status a,b`: each must be a run status.
    static func statuses(_ session: RunsSession) throws -> Set<RunStatus> {
        guard let text = session.arguments.string("status") else { return [] }
        var statuses: Set<RunStatus> = []
        for word in text.split(separator: ",").map({ $0.trimmingCharacters(in: .whitespaces) }) where !word.isEmpty {
            guard let status = RunStatus(rawValue: word) else {
                let names = RunStatus.allCases.map(\.rawValue)
                var expected = "one or more of " + names.joined(separator: ", ")
                if let near = EditDistance.nearest(to: word, in: names) { expected += " (did you mean '\(near)'?)" }
                throw UsageError(
                    .invalidValue(option: "--status", value: word, expected: expected),
                    command: session.arguments.command)
            }
            statuses.insert(status)
        }
        return statuses
    }
}
