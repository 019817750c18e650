import Foundation
import PipeBasics
import PipeCore

/// Shows a run as it happens: one line per step, a line per test as it passes or fails, and a summary with the
/// local paths of everything pulled back.
///
/// On a terminal lines carry ✓/✗ marks; with `CI=true` or when output is not a terminal (`plain`), each line
/// starts with a UTC timestamp instead, which is what CI logs want. Raw xcodebuild output is not shown here (it
/// is in each layer's log file) unless `verbose`.
public final class LiveRenderer: EventSink {
    public enum Style {
        case terminal
        case plain
    }

    private let style: Style
    private let verbose: Bool
    private let write: (String) -> Void

    public init(style: Style, verbose: Bool = false, write: @escaping (String) -> Void) {
        self.style = style
        self.verbose = verbose
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
        case .remoteCommand(_, let command):
            line(command, mark: "$", indent: 2)
        case .remoteProcessStarted(_, let host, let processGroup):
            if verbose { line("running on \(host) in process group \(processGroup)", mark: " ", indent: 4) }
        case .testFinished(_, let result):
            showTest(result)
        case .output(_, _, let text):
            if verbose { write(text) }
        case .layerFinished(let layer, _, let result):
            showLayer(layer, result)
        case .artifactsPulled(_, let paths):
            // The summary lists every path; here one line says where they went.
            let folders = Set(paths.map { ($0 as NSString).deletingLastPathComponent }).sorted()
            line("brought back \(paths.count) artifacts into \(folders.joined(separator: ", "))/", mark: " ", indent: 4)
        case .warning(let message):
            line("warning: \(message)", mark: "!")
        case .runFinished(let summary):
            showSummary(summary)
        }
    }

    private func showTest(_ result: TestCaseResult) {
        let duration = result.durationSeconds.map { " (\(Self.seconds($0)))" } ?? ""
        switch result.status {
        case .passed: line("\(result.identifier)\(duration)", mark: "✓", indent: 4)
        case .skipped: line("\(result.identifier) skipped", mark: "-", indent: 4)
        case .expectedFailure: line("\(result.identifier) (expected failure)\(duration)", mark: "✓", indent: 4)
        case .failed:
            line("\(result.identifier) failed\(duration)", mark: "✗", indent: 4)
            if let message = result.failureMessage {
                let location = result.failureLocation.map { "\($0): " } ?? ""
                line("\(location)\(message)", mark: " ", indent: 8)
            }
        }
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
            for evidence in result.evidence.prefix(8) { line(evidence, mark: " ", indent: 4) }
        }
    }

    private func showSummary(_ summary: RunFinishedSummary) {
        line(
            "summary of run \(summary.runID) (\(summary.status.rawValue), \(Self.seconds(summary.seconds)))", mark: "▸")
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
        line("run record: \(summary.summaryPath)", mark: " ", indent: 2)
        line(
            "exit \(summary.exitCode.rawValue): \(Self.verdict(summary.exitCode))",
            mark: summary.exitCode == .success ? "✓" : "✗")
    }

    private func line(_ text: String, mark: String, indent: Int = 0) {
        let padding = String(repeating: " ", count: indent)
        switch style {
        case .terminal:
            write("\(padding)\(mark) \(text)\n")
        case .plain:
            write("\(UTCTimestamp.iso8601(Date())) \(padding)\(mark == " " ? "" : mark + " ")\(text)\n")
        }
    }

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

    static func bytes(_ value: Int64) -> String {
        let units = ["B", "KB", "MB", "GB"]
        var amount = Double(value)
        var unit = 0
        while amount >= 1000, unit < units.count - 1 {
            amount /= 1000
            unit += 1
        }
        return unit == 0 ? "\(value) B" : String(format: "%.1f", amount) + " " + units[unit]
    }
}
