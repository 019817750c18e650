import Foundation
import PipeBasics
import PipeCore

/// `pipe runs flaky`: tests that both passed and failed at the same commit, from the run history alone.
enum RunsFlakyCommand {
    static let spec = CommandSpec(
        name: "flaky",
        summary: "List tests that both passed and failed at the same commit.",
        discussion: """
            A test whose result changed while the code did not is flaky (or depends on something outside the \
            code: the host, the simulator, the time). Every recorded attempt counts, retries too, in the same \
            pipeline and layer; the most recently seen first. --json prints an array (keys: identifier, pipeline, \
            layer, commit, passes, failures, runIDs, lastSeen).

            Examples:
              pipe runs flaky
              pipe runs flaky --pipeline app-intents --since 14d
              pipe runs flaky --json
            """,
        options: [
            .value("pipeline", short: "p", help: "Only runs of this pipeline."),
            .value(
                "since", valueName: "when",
                help: "Only attempts started at or after this: 2026-11-29, a UTC time, or an age (7d)."),
            .flag("json", help: "Print a JSON array instead of the table."),
        ])

    static func execute(_ session: RunsSession) throws -> Int32 {
        let since = try session.time("since")
        let pipeline = session.arguments.string("pipeline")
        let flaky = try session.store.flakyTests(pipeline: pipeline, since: since)
        if session.arguments.flag("json") {
            session.console.out(
                try RunsJSON.text(
                    flaky.map {
                        [
                            "identifier": $0.identifier, "pipeline": $0.pipeline, "layer": $0.layer,
                            "commit": $0.commit, "passes": $0.passes, "failures": $0.failures, "runIDs": $0.runIDs,
                            "lastSeen": UTCTimestamp.iso8601($0.lastSeen),
                        ] as [String: Any]
                    }))
            return 0
        }
        guard !flaky.isEmpty else {
            var message = "no flaky tests: no test both passed and failed at one commit"
            if let hint = session.pipelineHint(pipeline) { message += " (\(hint))" }
            session.console.out(message + "\n")
            return 0
        }
        let rows = flaky.map {
            [
                $0.identifier, "\($0.pipeline)/\($0.layer)", RunsFormatting.shortCommit($0.commit), "\($0.passes)",
                "\($0.failures)", RunsFormatting.time($0.lastSeen), $0.runIDs.joined(separator: " "),
            ]
        }
        session.console.out(
            RunsFormatting.table(
                header: ["TEST", "PIPELINE/LAYER", "COMMIT", "PASSED", "FAILED", "LAST SEEN (UTC)", "RUNS"], rows: rows)
        )
        return 0
    }
}
