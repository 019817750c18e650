import Foundation
import PipeBasics
import PipeCore
import PipeReport

/// Shows a run as it happens: one line per step, a line per test as it passes or fails (failures with their
/// location and message), and a summary with the local paths of everything pulled back.
///
/// On a terminal lines carry ✓/✗ marks, and while a layer runs its last line is a progress line (tests passed,
/// failed and skipped so far) that is rewritten in place and replaced by the layer's result. With `CI=true` or when
/// output is not a terminal (`plain`), nothing is rewritten and each line starts with a UTC timestamp (unless the
/// renderer has no clock: `pipe report` output must be the same for the same input). Raw xcodebuild output is not
/// shown here (it is in each layer's log file) unless `verbose`. Every string passes through the `SecretRedactor`.
///
/// Layers may run at the same time, so their events interleave: while another layer runs, a line about a layer (a
/// test, a command, raw output) starts with `[layer]`, and the progress line shows every running layer's counts.
/// The engine emits one event at a time, so this renderer needs no lock.
public final class LiveRenderer: EventSink {
    public enum Style {
        case terminal
        case plain
    }

    private let style: Style
    private let verbose: Bool
    private let clock: (() -> Date)?
    private let redactor: SecretRedactor
    private let write: (String) -> Void

    /// The layers running now, in the order they started, with their counts for the progress line.
    private var running: [(layer: String, passed: Int, failed: Int, skipped: Int)] = []
    private var progressShown = false
    /// Raw output of a layer not yet ended by a newline (verbose): lines of layers running at once stay whole.
    private var partialOutput: [String: String] = [:]

    /// - Parameters:
    ///   - clock: stamps plain lines; `nil` for output that must not depend on when it was made.
    ///   - redactor: applied to every string shown.
    public init(
        style: Style, verbose: Bool = false, clock: (() -> Date)? = { Date() }, redactor: SecretRedactor = .none,
        write: @escaping (String) -> Void
    ) {
        self.style = style
        self.verbose = verbose
        self.clock = clock
        self.redactor = redactor
        self.write = write
    }

    /// The style for this process: plain under CI or when stdout is not a terminal.
    public static func defaultStyle(environment: [String: String]) -> Style {
        if let ci = environment["CI"], ci.lowercased() == "true" || ci == "1" { return .plain }
        return isatty(STDOUT_FILENO) == 1 ? .terminal : .plain
    }

    public func emit(_ event: RunEvent) {
        switch event {
        case .runStarted(let runID, let pipeline, let requestedBy):
            line("run \(runID) · pipeline \(pipeline) · requested by \(requestedBy)", mark: "▸")
        case .checkedOut(let ref, let commit, let workspace):
            line("checked out \(ref) at commit \(commit) (workspace \(workspace))", mark: "✓")
        case .hostConnected(let host, let endpoint, let keyType, let fingerprint):
            line("host \(host) (\(endpoint)): \(keyType) host key \(fingerprint) verified", mark: "✓")
        case .workspaceUploaded(let host, let bytes, let seconds):
            line("workspace uploaded to \(host): \(Self.bytes(bytes)) in \(Self.seconds(seconds))", mark: "✓")
        case .simulatorsListed(let host, let available):
            line("\(available) simulator\(available == 1 ? "" : "s") available on \(host)", mark: "✓")
        case .simulatorChosen(_, let choice):
            line("simulator \(choice.simulator.udid) — \(choice.reason)", mark: "✓")
        case .layerStarted(let layer, let attempt):
            line("layer \(layer)" + (attempt > 1 ? " (attempt \(attempt))" : ""), mark: "▸")
            running.removeAll { $0.layer == layer }
            running.append((layer, 0, 0, 0))
        case .remoteCommand(let layer, let command):
            line(command, mark: "$", indent: 2, layer: layer)
        case .remoteProcessStarted(let layer, let host, let processGroup):
            if verbose {
                line("running on \(host) in process group \(processGroup)", mark: " ", indent: 4, layer: layer)
            }
        case .testFinished(let layer, let result):
            showTest(result, layer: layer)
            count(result, layer: layer)
        case .output(let layer, _, let text):
            if verbose { raw(text, layer: layer) }
        case .layerFinished(let layer, _, let result):
            flushOutput(of: layer)
            running.removeAll { $0.layer == layer }
            showLayer(layer, result)
        case .artifactsPulled(let layer, let paths):
            // The summary lists every path; here one line says where they went.
            let folders = Set(paths.map { ($0 as NSString).deletingLastPathComponent }).sorted()
            line(
                "brought back \(paths.count) artifacts into \(folders.joined(separator: ", "))/", mark: " ", indent: 4,
                layer: layer)
        case .warning(let message):
            line("warning: \(message)", mark: "!")
        case .note(let message):
            line(message, mark: "·")
        case .runFinished(let summary):
            running = []
            showSummary(summary)
        }
    }

    /// What starts a line about `layer`: its name when another layer runs at the same time (their lines
    /// interleave), else nothing.
    private func tag(_ layer: String?) -> String {
        guard let layer, running.contains(where: { $0.layer != layer }) else { return "" }
        return "[\(layer)] "
    }

    private func showTest(_ result: TestCaseResult, layer: String) {
        let duration = result.durationSeconds.map { " (\(Self.seconds($0)))" } ?? ""
        let identifier = result.identifier
        switch result.status {
        case .passed: line("\(identifier)\(duration)", mark: "✓", indent: 4, layer: layer)
        case .skipped:
            line(
                "\(identifier) skipped" + (result.failureMessage.map { ": \($0)" } ?? ""), mark: "-", indent: 4,
                layer: layer)
        case .expectedFailure: line("\(identifier) (expected failure)\(duration)", mark: "✓", indent: 4, layer: layer)
        case .failed:
            line("\(identifier) failed\(duration)", mark: "✗", indent: 4, layer: layer)
            let location = result.failureLocation.map { "\($0): " } ?? ""
            if let message = result.failureMessage {
                let lines = message.split(omittingEmptySubsequences: false, whereSeparator: \.isNewline)
                for (index, text) in lines.prefix(12).enumerated() {
                    line((index == 0 ? location : "") + text, mark: " ", indent: 8)
                }
                if lines.count > 12 { line("… \(lines.count - 12) more lines", mark: " ", indent: 8) }
            } else if !location.isEmpty {
                line(String(location.dropLast(2)), mark: " ", indent: 8)
            }
        }
    }

    private func count(_ result: TestCaseResult, layer: String) {
        guard style == .terminal, let index = running.firstIndex(where: { $0.layer == layer }) else { return }
        switch result.status {
        case .passed, .expectedFailure: running[index].passed += 1
        case .failed: running[index].failed += 1
        case .skipped: running[index].skipped += 1
        }
        let parts = running.map { current in
            var text = "\(current.layer): \(current.passed) passed"
            if current.failed > 0 { text += ", \(current.failed) failed" }
            if current.skipped > 0 { text += ", \(current.skipped) skipped" }
            return text
        }
        clearProgress()
        write(redactor.redact("  … " + parts.joined(separator: " · ")))
        progressShown = true
    }

    private func showLayer(_ layer: String, _ result: LayerResultSummary) {
        var text = "layer \(layer): \(result.outcome.rawValue)"
        if result.passedTests + result.failedTests > 0 {
            text += " — \(result.passedTests) passed, \(result.failedTests) failed"
        }
        if let exit = result.exitText { text += ", exit \(exit)" }
        if result.seconds > 0 { text += " (\(Self.seconds(result.seconds)))" }
        line(text, mark: Self.mark(for: result.outcome))
        if result.outcome != .passed {
            for evidence in result.evidence.prefix(12) { line(evidence, mark: " ", indent: 4) }
        }
    }

    private func showSummary(_ summary: RunFinishedSummary) {
        var facts = [summary.status.rawValue]
        if summary.seconds > 0 { facts.append(Self.seconds(summary.seconds)) }
        let title = summary.runID.isEmpty ? "summary" : "summary of run \(summary.runID)"
        line("\(title) (\(facts.joined(separator: ", ")))", mark: "▸")
        if let problem = summary.problem { line(problem, mark: "✗", indent: 2) }
        let width = summary.layers.map(\.name.count).max() ?? 0
        for layer in summary.layers {
            let name = layer.name.padding(toLength: width, withPad: " ", startingAt: 0)
            if let outcome = layer.outcome {
                line("\(name)  \(outcome.rawValue)", mark: Self.mark(for: outcome), indent: 2)
            } else {
                line("\(name)  not run", mark: "-", indent: 2)
            }
            for path in layer.artifacts { line(path, mark: " ", indent: 6 + width) }
        }
        for pending in summary.pendingSignoffs {
            line("\(pending): awaiting sign-off (pipe signoff \(summary.runID) \(pending) …)", mark: "…", indent: 2)
        }
        if !summary.summaryPath.isEmpty { line("run record: \(summary.summaryPath)", mark: " ", indent: 2) }
        if !summary.reportPaths.isEmpty {
            line("reports: \(summary.reportPaths.joined(separator: ", "))", mark: " ", indent: 2)
        }
        line(
            "exit \(summary.exitCode.rawValue): \(Self.verdict(summary.exitCode))",
            mark: summary.exitCode == .success ? "✓" : "✗")
    }

    /// Writes one line; `layer` names the layer it is about, shown first when another layer runs too.
    private func line(_ text: String, mark: String, indent: Int = 0, layer: String? = nil) {
        clearProgress()
        let padding = String(repeating: " ", count: indent) + tag(layer)
        // Test names and failure messages come from the host: no escape sequence of theirs reaches the terminal.
        let text = Console.escapedForTerminal(redactor.redact(text))
        switch (style, clock) {
        case (.terminal, _), (.plain, nil):
            write("\(padding)\(mark) \(text)\n")
        case (.plain, let clock?):
            write("\(UTCTimestamp.iso8601(clock())) \(padding)\(mark == " " ? "" : mark + " ")\(text)\n")
        }
    }

    /// Raw output, whole lines at a time, each named by its layer while another layer runs.
    private func raw(_ text: String, layer: String) {
        var lines = (partialOutput[layer] ?? "") + text
        if lines.lastIndex(of: "\n") == nil {
            // A line that never ends is shown in pieces rather than held without bound.
            guard lines.utf8.count > Self.longestHeldLineBytes else {
                partialOutput[layer] = lines
                return
            }
            lines += "\n"
        }
        guard let lastNewline = lines.lastIndex(of: "\n") else { return }
        partialOutput[layer] = String(lines[lines.index(after: lastNewline)...])
        lines = String(lines[...lastNewline])
        clearProgress()
        let tagged = running.contains(where: { $0.layer != layer })
        for text in redactor.redact(lines).split(separator: "\n", omittingEmptySubsequences: false).dropLast() {
            write((tagged ? "[\(layer)] " : "") + DisplayEscaping.escaped(String(text), keepsTabs: true) + "\n")
        }
    }

    /// Shows what is left of a layer's raw output when it ends.
    private func flushOutput(of layer: String) {
        if let rest = partialOutput[layer], !rest.isEmpty { raw("\n", layer: layer) }
        partialOutput[layer] = nil
    }

    /// Erases the progress line (carriage return, clear line) before anything else is written over it.
    private func clearProgress() {
        guard progressShown else { return }
        write("\r\u{1B}[2K")
        progressShown = false
    }

    /// The most of an unfinished output line held back for its end.
    static let longestHeldLineBytes = 64 * 1024

    static func mark(for outcome: LayerOutcome) -> String {
        switch outcome {
        case .passed, .signedOff: return "✓"
        case .flaky: return "~"
        case .skipped: return "-"
        case .awaitingSignoff: return "…"
        default: return "✗"
        }
    }

    static func verdict(_ code: PipeExitCode) -> String {
        switch code {
        case .success: return "merge gate passed"
        case .appFailure: return "merge gate failed: the app's build or tests failed"
        case .usage: return "invalid request; nothing was verified"
        case .environmentFailure: return "could not verify: host configuration or infrastructure failure (not the app)"
        case .cancelled: return "cancelled"
        }
    }

    static func seconds(_ value: Double) -> String {
        value < 10 ? String(format: "%.2f s", value) : String(format: "%.1f s", value)
    }

    static func bytes(_ value: Int64) -> String { ByteCount.text(value) }
}
