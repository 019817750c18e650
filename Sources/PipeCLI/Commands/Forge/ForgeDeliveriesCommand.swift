import Foundation
import PipeBasics
import PipeCore
import PipeForge

/// `pipe forge deliveries`: the latest webhook deliveries the controller received (the run store's audit log,
/// source `forge:<name>`) and what was done with each, newest first. Payload text is shown escaped.
enum ForgeDeliveriesCommand {
    static let spec = CommandSpec(
        name: "deliveries",
        summary: "List recent webhook deliveries and what was done with each.",
        discussion: """
            Every delivery to a forge's webhook endpoint, accepted or refused, is written to the run store's \
            audit log by the controller that received it. This lists the latest, newest first: when, the forge, \
            the verdict (accepted, refused, failed) and HTTP status, the event and delivery id, what was done \
            (queued, reused, superseded, ignored, a replay) or why it was refused, and the runs it reported. Text \
            from payloads (titles, branch names) is shown with control characters escaped. --json prints a JSON \
            array, one object per delivery, with the audit entry's fields.

            Examples:
              pipe forge deliveries
              pipe forge deliveries --forge github --limit 5 --json
            """,
        options: [
            .value("forge", valueName: "name", help: "Only this forge's deliveries."),
            .value("limit", short: "n", help: "How many deliveries (default 20)."),
            .flag("json", help: "Print a JSON array instead of lines."),
        ])

    static let defaultLimit = 20

    /// One audit entry, read back.
    struct Delivery {
        var id: Int64
        var at: Date
        var forge: String
        var fields: [String: Any]

        func text(_ key: String) -> String? {
            switch fields[key] {
            case let text as String: text.isEmpty ? nil : text
            case let number as NSNumber: number.stringValue
            default: nil
            }
        }

        var runs: [String] { (fields["runs"] as? [Any])?.compactMap { $0 as? String } ?? [] }
    }

    static func execute(_ session: ForgeSession) throws -> Int32 {
        let limit = try session.limit(default: defaultLimit)
        let names =
            try session.arguments.string("forge").map { [try session.forge($0).name] }
            ?? session.forges.forges.map(\.name)
        let store = try session.store
        var deliveries: [Delivery] = []
        for name in names {
            for entry in try store.auditEntries(source: "forge:\(name)", limit: limit) {
                let fields =
                    (try? JSONSerialization.jsonObject(with: Data(entry.entry.utf8))) as? [String: Any]
                    ?? ["verdict": "unreadable", "result": entry.entry]
                deliveries.append(Delivery(id: entry.id, at: entry.at, forge: name, fields: fields))
            }
        }
        deliveries.sort { ($0.at, $0.id) > ($1.at, $1.id) }
        deliveries = Array(deliveries.prefix(limit))

        if session.arguments.flag("json") {
            session.console.out(try session.json(deliveries.map(json)))
        } else if deliveries.isEmpty {
            session.console.err(
                "no webhook deliveries recorded\(names.count == 1 ? " for \(names[0])" : ""); the controller records "
                    + "each one it receives\n")
        } else {
            for delivery in deliveries { session.console.out(line(delivery) + "\n") }
        }
        return 0
    }

    /// One line: every part from a payload escaped, so a title cannot move the cursor or fake another line.
    static func line(_ delivery: Delivery) -> String {
        var parts = [UTCTimestamp.iso8601(delivery.at), delivery.forge]
        var verdict = delivery.text("verdict") ?? "?"
        if let status = delivery.text("status") { verdict += " \(status)" }
        parts.append(verdict)
        if let event = delivery.text("event") { parts.append(event) }
        if let id = delivery.text("delivery") { parts.append("delivery \(id)") }
        var line = parts.map { DisplayEscaping.escaped($0) }.joined(separator: "  ")
        if let what = delivery.text("result") ?? delivery.text("reason") {
            line += ": " + DisplayEscaping.escaped(what)
        }
        let runs = delivery.runs
        if !runs.isEmpty { line += " [runs: \(runs.map { DisplayEscaping.escaped($0) }.joined(separator: ", "))]" }
        return line
    }

    static func json(_ delivery: Delivery) -> [String: Any] {
        var object = delivery.fields
        object["at"] = UTCTimestamp.iso8601(delivery.at)
        object["forge"] = delivery.forge
        object["runs"] = delivery.runs
        return object
    }
}
