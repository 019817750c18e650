import Foundation
import PipeCore

/// `pipe runs cancel <run>`: asks the process driving a run (another terminal, CI job or the controller) to
/// cancel it as Ctrl-C would, and waits until it has.
enum RunsCancelCommand {
    /// How often the run's status is read while waiting.
    static let pollInterval: TimeInterval = 0.25

    static let spec = CommandSpec(
        name: "cancel",
        summary: "Cancel a run in progress in another process, as Ctrl-C would there.",
        discussion: """
            Records the request in the run store; the `pipe` process driving the run checks for it every half \
            second and stops as with Ctrl-C: the remote process groups are killed, layers in progress end \
            cancelled, everything brought back is kept, and that process exits 130. This command then waits \
            (--wait, default 60 s) until the run has ended, printing progress, and reports its final status. The \
            request stays recorded if waiting runs out or is stopped with Ctrl-C, so the run still stops.

            Examples:
              pipe runs cancel last
              pipe runs cancel 20261129-1403 --reason "wrong branch"
              pipe runs cancel 20261129-140312-7f3a --wait 0
            """,
        arguments: [.required("run", help: "A run id, a unique prefix of one, or `last`.")],
        options: [
            .value(
                "reason", valueName: "text", help: "Why, for the run record (default: cancelled from the command line)."
            ),
            .value(
                "wait", valueName: "seconds", default: "60",
                help: "How long to wait for the run to stop; 0 asks and returns at once."),
        ],
        sections: [
            HelpSection(
                title: "EXIT CODES",
                rows: [
                    .init(
                        "0",
                        "The run is cancelled (or was already cancelled), or with --wait 0 the request is recorded."),
                    .init(
                        "2", "Nothing to cancel: the run had already ended (finished or interrupted), or no such run."),
                    .init(
                        "3",
                        "The run did not stop while waiting, or ended otherwise (finished before the request "
                            + "was seen, or its coordinator died); the message says which."),
                    .init("130", "Stopped waiting (Ctrl-C); the request stays recorded."),
                ])
        ])

    static func execute(_ session: RunsSession) throws -> Int32 {
        guard let wait = Double(session.arguments.string("wait") ?? "60"), wait >= 0, wait.isFinite else {
            throw UsageError(
                .invalidValue(
                    option: "--wait", value: session.arguments.string("wait") ?? "", expected: "seconds, 0 or more"),
                command: session.arguments.command)
        }
        let run = try session.runArgument()
        let runID = run.record.runID
        let store = try session.store
        let reason = session.arguments.string("reason") ?? "cancelled from the command line"
        let console = session.console

        switch try store.requestCancellation(
            runID: runID, reason: reason, requestedBy: RunCommand.requester(session.context.environment), at: Date())
        {
        case .notInProgress(.cancelled):
            console.out("run \(runID) is already cancelled\(run.record.exitCode.map { " (exit \($0))" } ?? "")\n")
            return 0
        case .notInProgress(let status):
            var message = "run \(runID) is not in progress: it is \(status.rawValue)"
            if let code = run.record.exitCode { message += " (exit \(RunsFormatting.exit(code)))" }
            throw RequestError(message + "; there is nothing to cancel")
        case .alreadyRequested(let earlier):
            console.out(
                "run \(runID): cancellation already asked by \(earlier.requestedBy) at "
                    + "\(RunsFormatting.time(earlier.at)) (\(earlier.reason)); waiting for it to stop\n")
        case .requested:
            var line = "run \(runID): cancellation requested"
            if let owner = run.owner { line += "; \(owner.description) will stop it" }
            console.out(line + "\n")
        }
        if wait == 0 { return 0 }
        return try waitForEnd(runID, store: store, seconds: wait, session: session)
    }

    private static func waitForEnd(_ runID: String, store: RunStore, seconds: Double, session: RunsSession) throws
        -> Int32
    {
        let console = session.console
        let interrupt = CancellationToken()
        let signals = SignalCancellation(token: interrupt)
        defer { withExtendedLifetime(signals) {} }
        let started = Date()
        var nextProgress = started.addingTimeInterval(5)
        while true {
            guard let run = try store.run(runID) else {
                throw RequestError("run \(runID) disappeared from the run store (pruned?) while waiting for it to stop")
            }
            let record = run.record
            switch record.status {
            case .cancelled:
                let open = record.layers.filter { $0.outcome == .cancelled }.map(\.name)
                var line = "run \(runID) cancelled after \(RunsFormatting.duration(Date().timeIntervalSince(started)))"
                if let code = record.exitCode { line += ", exit \(code)" }
                if !open.isEmpty { line += "; cancelled layers: \(open.joined(separator: ", "))" }
                console.out(line + "\n")
                return 0
            case .finished:
                console.out(
                    "run \(runID) finished before it saw the request: exit \(RunsFormatting.exit(record.exitCode))\n")
                return PipeExitCode.environmentFailure.rawValue
            case .interrupted:
                console.out(
                    "run \(runID) was interrupted: its coordinator died before it could stop the run; its folder on "
                        + "the host is left for `pipe hosts clean`\n")
                return PipeExitCode.environmentFailure.rawValue
            case .running, .queued:
                break
            }
            if interrupt.isCancelled {
                console.err(
                    "stopped waiting; the cancellation request stays recorded and run \(runID) will still stop\n")
                return PipeExitCode.cancelled.rawValue
            }
            let waited = Date().timeIntervalSince(started)
            if waited >= seconds {
                var message = "run \(runID) is still \(record.status.rawValue) after \(Int(seconds)) s"
                if let owner = run.owner { message += "; its coordinator is \(owner.description)" }
                console.err(message + ". The request stays recorded: it stops at its next check\n")
                return PipeExitCode.environmentFailure.rawValue
            }
            if Date() >= nextProgress {
                let current = record.layers.first { $0.outcome == nil && !$0.attempts.isEmpty }?.name
                console.err(
                    "waiting for run \(runID) to stop (\(Int(waited)) s"
                        + (current.map { ", layer \($0) still running" } ?? "") + ")…\n")
                nextProgress = nextProgress.addingTimeInterval(5)
                // Its coordinator may have died meanwhile: that settles the run as interrupted.
                StoreAccess.settleInterruptedRuns(store, project: session.project, console: console)
            }
            Thread.sleep(forTimeInterval: pollInterval)
        }
    }
}
