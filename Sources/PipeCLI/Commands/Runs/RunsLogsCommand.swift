import Foundation
import PipeBasics
import PipeCore

/// `pipe runs logs <run>`: the raw output of a run's layers (xcodebuild's own), from the store's event log, and,
/// with `--follow`, as it arrives from a run in progress in another process.
enum RunsLogsCommand {
    /// How often `--follow` asks the store for new output.
    static let pollInterval: TimeInterval = 0.25
    /// Events read per request.
    static let pageSize = 500
    /// How often `--follow` checks whether the run's coordinator died (which ends the run as interrupted).
    static let ownerCheckInterval: TimeInterval = 5

    static let spec = CommandSpec(
        name: "logs",
        summary: "Print a run's raw output (xcodebuild's), or follow it while it runs.",
        discussion: """
            Prints the output of every layer's command (both streams, in the order they arrived) as recorded in \
            the run store; the layer and attempt headers go to stderr, so stdout is the output alone. With \
            --follow, keeps printing new output of a run in progress (started from another terminal, CI job or \
            the controller) until the run ends, then exits 0; Ctrl-C stops following (exit 130) and leaves the \
            run alone.

            Examples:
              pipe runs logs last
              pipe runs logs 20261129-1403 --layer logic > logic.log
              pipe runs logs last --follow
            """,
        arguments: [.optional("run", help: "A run id, a unique prefix of one, or `last` (the default).")],
        options: [
            .value("layer", short: "l", help: "Only this layer's output."),
            .flag("follow", short: "f", help: "Keep printing new output until the run ends."),
        ])

    private struct OutputPayload: Decodable {
        var text: String
    }

    private struct LayerStartedPayload: Decodable {
        var attempt: Int?
    }

    static func execute(_ session: RunsSession) throws -> Int32 {
        let run = try session.runArgument()
        let runID = run.record.runID
        let store = try session.store
        let layer = session.arguments.string("layer")
        if let layer, !run.record.layers.contains(where: { $0.name == layer }) {
            let names = run.record.layers.map(\.name)
            var message = "run \(runID) has no layer '\(layer)'"
            if let near = EditDistance.nearest(to: layer, in: names) { message += "; did you mean '\(near)'?" }
            throw session.usage(message + " (its layers: \(names.joined(separator: ", ")))")
        }
        let follow = session.arguments.flag("follow")

        let cancellation = CancellationToken()
        let signals = follow ? SignalCancellation(token: cancellation) : nil
        defer { withExtendedLifetime(signals) {} }

        // Into a file the log stays byte for byte; on a terminal the host's escape sequences are shown, not obeyed.
        var printer = Printer(console: session.console, escapesControlCharacters: isatty(STDOUT_FILENO) != 0)
        var last: Int64 = 0
        var lastOwnerCheck = Date()
        while true {
            // The status is read before the events: whatever the run wrote before it ended is in the next read.
            let status = follow ? try store.run(runID)?.record.status : nil
            var batch: [StoredEvent]
            repeat {
                batch = try store.events(runID: runID, after: last, layer: layer, limit: pageSize)
                for event in batch { printer.show(event) }
                last = batch.last?.sequence ?? last
            } while batch.count == pageSize && !cancellation.isCancelled
            if cancellation.isCancelled { break }
            guard follow, let status, status == .running || status == .queued else { break }
            if Date().timeIntervalSince(lastOwnerCheck) >= ownerCheckInterval {
                // A coordinator killed while being followed would leave the run `running` for ever.
                StoreAccess.settleInterruptedRuns(store, project: session.project, console: session.console)
                lastOwnerCheck = Date()
            }
            Thread.sleep(forTimeInterval: pollInterval)
            if cancellation.isCancelled { break }
        }
        printer.finishLine()
        if cancellation.isCancelled {
            session.console.err("stopped following run \(runID); the run itself goes on\n")
            return PipeExitCode.cancelled.rawValue
        }
        if follow, let ended = try store.run(runID) {
            var line = "run \(runID) \(ended.record.status.rawValue)"
            if let code = ended.record.exitCode { line += ", exit \(RunsFormatting.exit(code))" }
            session.console.err(line + "\n")
        } else if printer.printedNothing {
            session.console.err("run \(runID) has no output\(layer.map { " in layer \($0)" } ?? "") yet\n")
        }
        return 0
    }

    /// Writes output text as it was recorded, with a header on stderr where a layer's attempt begins.
    private struct Printer {
        let console: Console
        let escapesControlCharacters: Bool
        var printedNothing = true
        var endsWithNewline = true

        mutating func show(_ event: StoredEvent) {
            let data = Data(event.payload.utf8)
            switch event.type {
            case "output":
                guard let text = try? JSONDecoder().decode(OutputPayload.self, from: data).text, !text.isEmpty
                else { return }
                console.out(escapesControlCharacters ? Console.escapedForTerminal(text) : text)
                printedNothing = false
                endsWithNewline = text.hasSuffix("\n")
            case "layer-started":
                let attempt = (try? JSONDecoder().decode(LayerStartedPayload.self, from: data))?.attempt ?? 1
                finishLine()
                console.err("==> layer \(event.layer ?? "?"), attempt \(attempt) <==\n")
            case "run-interrupted":
                finishLine()
                console.err("==> the run was interrupted: its coordinator stopped <==\n")
            default:
                break
            }
        }

        /// A header after output that stopped mid-line would be glued to it.
        mutating func finishLine() {
            if !endsWithNewline {
                console.out("\n")
                endsWithNewline = true
            }
        }
    }
}
