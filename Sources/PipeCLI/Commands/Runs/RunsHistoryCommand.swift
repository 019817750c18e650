import Foundation
import PipeBasics
import PipeCore

/// `pipe runs history <test>`: one test's recent results and durations.
enum RunsHistoryCommand {
    static let defaultLimit = 20

    static let spec = CommandSpec(
        name: "history",
        summary: "Show a test's recent results and durations.",
        discussion: """
            One line per recorded attempt that ran the test, newest first: run, time, pipeline and layer, \
            attempt, commit, result, duration and the failure message; then how often it passed and its median \
            duration. The identifier is written as the run shows it (ReadingIDTests/testRejectsEmptyInput()); \
            when nothing matches, similar identifiers from recent runs are suggested. --json prints an array \
            (keys: runID, pipeline, layer, attempt, commit, status, durationSeconds, failureMessage, at).

            Examples:
              pipe runs history 'ReadingIDTests/testRejectsEmptyInput()'
              pipe runs history 'CheckReadingIDIntentTests/testPerformReturnsTheNormalizedID()' --limit 50
              pipe runs history 'ReadingIDTests/testRejectsInnerSpace()' --pipeline app-intents --json
            """,
        arguments: [.required("test", help: "The test's identifier, as `pipe runs show` lists it.")],
        options: [
            .value("pipeline", short: "p", help: "Only runs of this pipeline."),
            .value("limit", short: "n", valueName: "n", help: "At most this many results (default 20), or `all`."),
            .flag("json", help: "Print a JSON array instead of the table."),
        ])

    static func execute(_ session: RunsSession) throws -> Int32 {
        let identifier = session.arguments.argument("test") ?? ""
        let pipeline = session.arguments.string("pipeline")
        let limit = try session.limit(default: defaultLimit) ?? Int.max
        let store = try session.store
        let entries = try store.testHistory(identifier: identifier, pipeline: pipeline, limit: limit)
        if session.arguments.flag("json") {
            session.console.out(
                try RunsJSON.text(
                    entries.map {
                        [
                            "runID": $0.runID, "pipeline": $0.pipeline, "layer": $0.layer, "attempt": $0.attempt,
                            "commit": RunsJSON.orNull($0.commit), "status": $0.status.rawValue,
                            "durationSeconds": RunsJSON.orNull($0.durationSeconds),
                            "failureMessage": RunsJSON.orNull($0.failureMessage),
                            "at": UTCTimestamp.iso8601($0.at),
                        ] as [String: Any]
                    }))
            return 0
        }
        guard !entries.isEmpty else {
            var message = "no results recorded for test '\(identifier)'"
            if let pipeline { message += " in pipeline \(pipeline)" }
            let similar = try suggestions(for: identifier, store: store)
            if !similar.isEmpty { message += "; did you mean: " + similar.joined(separator: ", ") }
            throw RequestError(message)
        }
        let rows = entries.map { entry -> [String] in
            var result = entry.status.rawValue
            if let message = entry.failureMessage, entry.status == .failed { result += ": \(message)" }
            return [
                entry.runID, RunsFormatting.time(entry.at), "\(entry.pipeline)/\(entry.layer)", "\(entry.attempt)",
                RunsFormatting.shortCommit(entry.commit), RunsFormatting.duration(entry.durationSeconds), result,
            ]
        }
        session.console.out(
            RunsFormatting.table(
                header: ["RUN", "STARTED (UTC)", "PIPELINE/LAYER", "ATTEMPT", "COMMIT", "DURATION", "RESULT"],
                rows: rows))
        let passed = entries.filter { $0.status == .passed }.count
        let failed = entries.filter { $0.status == .failed }.count
        var summary = "\(entries.count) result\(entries.count == 1 ? "" : "s"): \(passed) passed, \(failed) failed"
        let durations = entries.compactMap(\.durationSeconds).sorted()
        if !durations.isEmpty {
            summary += "; median \(RunsFormatting.duration(durations[durations.count / 2]))"
            summary += ", longest \(RunsFormatting.duration(durations.last))"
        }
        session.console.out(summary + "\n")
        return 0
    }

    /// Identifiers of recent runs' tests that contain what was typed or are a few edits away from it.
    static func suggestions(for typed: String, store: RunStore) throws -> [String] {
        var known: [String] = []
        for summary in try store.listRuns(RunFilter(limit: 10)) {
            guard let run = try store.run(summary.runID) else { continue }
            for identifier in run.record.layers.flatMap({ $0.tests.map(\.identifier) })
            where !known.contains(identifier) {
                known.append(identifier)
            }
        }
        let needle = typed.lowercased()
        let containing = known.filter { !needle.isEmpty && $0.lowercased().contains(needle) }
        if !containing.isEmpty { return Array(containing.prefix(5)) }
        return EditDistance.nearest(to: typed, in: known).map { [$0] } ?? []
    }
}
