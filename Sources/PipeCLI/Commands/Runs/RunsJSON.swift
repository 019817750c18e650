import Foundation
import PipeBasics
import PipeCore

/// The `--json` forms of `pipe runs …`: sorted keys, every documented key present (`null` when unknown), times
/// in UTC ISO 8601, durations in seconds; so scripts can rely on the shape.
enum RunsJSON {
    /// `value` (dictionaries, arrays, strings, numbers, `NSNull`) as pretty-printed JSON with a final newline.
    static func text(_ value: Any) throws -> String {
        // Foundation on Linux pretty-prints an empty array across three lines.
        if let array = value as? [Any], array.isEmpty { return "[]\n" }
        let data = try JSONSerialization.data(
            withJSONObject: value, options: [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes])
        return String(decoding: data, as: UTF8.self) + "\n"
    }

    /// A value or JSON `null`.
    static func orNull(_ value: Any?) -> Any { value ?? NSNull() }

    static func time(_ date: Date?) -> Any { date.map(UTCTimestamp.iso8601) ?? NSNull() }

    /// A row of `pipe runs list --json`.
    static func summary(_ run: RunSummary) -> [String: Any] {
        [
            "runID": run.runID, "pipeline": run.pipeline, "status": run.status.rawValue,
            "exitCode": orNull(run.exitCode.map { Int($0) }), "commit": orNull(run.commit),
            "host": orNull(run.hostName),
            "startedAt": UTCTimestamp.iso8601(run.startedAt), "finishedAt": time(run.finishedAt),
            "durationSeconds": orNull(run.durationSeconds), "requestedBy": run.requestedBy, "trigger": run.trigger,
            "problem": orNull(run.problem), "cancellationRequested": run.cancellationRequested,
            "layers": run.layers.map { ["name": $0.name, "outcome": orNull($0.outcome?.rawValue)] },
        ]
    }

    /// A value encoded with `Codable` (sorted keys), as a JSON object for further composition.
    static func object<Value: Encodable>(_ value: Value) throws -> Any {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        return try JSONSerialization.jsonObject(with: try encoder.encode(value), options: [.fragmentsAllowed])
    }
}
