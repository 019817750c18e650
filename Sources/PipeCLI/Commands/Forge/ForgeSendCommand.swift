import Foundation
import PipeBasics
import PipeCore
import PipeForge

/// `pipe forge send`: sends the outbox's due updates when no controller runs, as a controller's sender does, and
/// says what went, what waits (until when, and why) and what failed.
enum ForgeSendCommand {
    static let spec = CommandSpec(
        name: "send",
        summary: "Send the forge updates waiting in the run store's outbox (when no controller runs).",
        discussion: """
            Every commit status, check run and comment Pipe posts is written to the run store first, and a \
            controller sends it. Without a controller (a `pipe run --report` in CI, a `pipe signoff`), this sends \
            what is due now, one commit and context at a time and only the newest state of each, with each \
            forge's token read where forges.yml says. An update the forge asked to wait for (a rate limit, a 5xx) \
            stays in the outbox with the time of its next try; one the forge refused for good is failed. It is \
            safe to run while a controller runs: a target is sent by one sender at a time.

            Exits 0 when nothing failed, 3 when an update failed. --json prints an object with `sent`, `waiting` \
            and `failed` arrays.

            Examples:
              pipe forge send
              pipe forge send --json
            """,
        options: [.flag("json", help: "Print a JSON object instead of lines.")])

    /// One update this pass handled.
    private struct Handled {
        var update: ForgeUpdate
        var outcome: ForgeOutboxSender.Outcome
    }

    private final class Journal: @unchecked Sendable {
        private let lock = NSLock()
        private var handled: [Handled] = []

        func add(_ update: ForgeUpdate, _ outcome: ForgeOutboxSender.Outcome) {
            lock.withLock { handled.append(Handled(update: update, outcome: outcome)) }
        }

        var all: [Handled] { lock.withLock { handled } }
    }

    static func execute(_ session: ForgeSession) throws -> Int32 {
        let store = try session.store
        let delivery = ControllerForges.outboxDelivery(
            forges: session.forges, store: store, credentials: session.credentials, transport: session.transport)
        let journal = Journal()
        let owner = RunOwner.current()
        let sender = ForgeOutboxSender(store: store, owner: "\(owner.hostname):\(owner.pid):forge-send") { update in
            let outcome = delivery.deliver(update)
            journal.add(update, outcome)
            return outcome
        }
        let report = try sender.sendDue()
        let handled = journal.all
        let sent = handled.filter { $0.outcome == .sent }.map(\.update)
        let failedNow = Set(
            try store.forgeUpdates(states: [.failed], limit: 10_000).map(\.sequence)
        )
        let failed = handled.filter { failedNow.contains($0.update.sequence) }
        let waiting = try store.forgeUpdates(states: [.pending, .sending], limit: 10_000)

        if session.arguments.flag("json") {
            session.console.out(
                try session.json([
                    "sent": sent.map { json($0) },
                    "waiting": waiting.map { json($0) },
                    "failed": failed.map { json($0.update, error: reason($0.outcome)) },
                ]))
        } else {
            show(sent: sent, waiting: waiting, failed: failed, console: session.console)
        }
        return report.failed == 0 ? 0 : PipeExitCode.environmentFailure.rawValue
    }

    private static func show(sent: [ForgeUpdate], waiting: [ForgeUpdate], failed: [Handled], console: Console) {
        if sent.isEmpty && waiting.isEmpty && failed.isEmpty {
            console.out("nothing to send: the outbox is empty\n")
            return
        }
        // One line per update: what a forge answered is shown escaped, its line breaks too.
        for update in sent { console.out(DisplayEscaping.escaped("sent     \(describe(update))") + "\n") }
        for update in waiting { console.out(waitingLine(update) + "\n") }
        for item in failed {
            console.out(
                DisplayEscaping.escaped("failed   \(describe(item.update)): \(reason(item.outcome) ?? "")") + "\n")
        }
        console.err("\(sent.count) sent, \(waiting.count) waiting, \(failed.count) failed\n")
    }

    /// An update still in the outbox: until when, and why (the forge's last answer), escaped.
    static func waitingLine(_ update: ForgeUpdate) -> String {
        var line = "waiting  \(describe(update)) until \(UTCTimestamp.iso8601(update.nextAttemptAt))"
        if update.state == .sending, let owner = update.claimedBy { line += ", being sent by \(owner)" }
        if let error = update.lastError { line += ": \(error)" }
        return DisplayEscaping.escaped(line)
    }

    private static func describe(_ update: ForgeUpdate) -> String {
        var text = "\(update.draft.forge): \(update.draft.target)"
        if let runID = update.draft.runID { text += " (run \(runID))" }
        return text
    }

    private static func reason(_ outcome: ForgeOutboxSender.Outcome) -> String? {
        switch outcome {
        case .sent: nil
        case .retry(_, let error, _): error
        case .failed(let error): error
        }
    }

    private static func json(_ update: ForgeUpdate, error: String? = nil) -> [String: Any] {
        var object: [String: Any] = [
            "forge": update.draft.forge, "target": update.draft.target, "kind": update.draft.kind,
            "state": update.state.rawValue, "attempts": update.attempts, "sequence": update.sequence,
        ]
        if let runID = update.draft.runID { object["run"] = runID }
        if update.state == .pending || update.state == .sending {
            object["next_attempt_at"] = UTCTimestamp.iso8601(update.nextAttemptAt)
        }
        if let owner = update.claimedBy { object["claimed_by"] = owner }
        if let error = error ?? update.lastError { object["error"] = error }
        return object
    }
}
