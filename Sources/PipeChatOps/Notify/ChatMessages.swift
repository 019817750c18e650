import Foundation
import PipeCore
import PipeReport

/// The texts the chat receives: the acknowledgement, the three progress messages, and the answers to questions.
/// Pure functions of their input.
public enum ChatMessages {
    /// The acknowledgement (within 3 s, so only what is known without the network: no commit yet).
    public static func queued(_ run: ChatQueuedRun) -> String {
        "queued as run \(ChatText.plain(run.runID)) — \(ChatText.plain(run.pipeline)) @ \(ChatText.plain(run.ref))"
    }

    /// The run has a host and a simulator: which, and the commit the ref resolved to.
    public static func started(_ record: RunRecord) -> String {
        var text = "▸ run \(ChatText.code(record.runID)) started — \(ChatText.plain(record.pipeline)) @ "
        text += ChatText.plain(record.request.ref)
        if let commit = record.commit { text += " (commit \(ChatText.code(String(commit.prefix(12)))))" }
        if let host = record.host { text += " on host \(ChatText.code(host.name))" }
        if let simulator = record.simulator?.simulator {
            text += ", \(ChatText.plain(simulator.name)) (\(ChatText.plain(simulator.runtimeName))) UDID "
            text += ChatText.code(simulator.udid)
        }
        return text
    }

    /// The merge gate's verdict once every automated layer has ended, followed by the run's Markdown summary
    /// (failures with message and location, counts, classification with evidence, pending checklists).
    public static func mergeGate(_ record: RunRecord, flakyPolicy: FlakyPolicy = .allow) -> String {
        let merge = record.layers.filter { $0.gate == .merge }
        let outcomes = merge.compactMap(\.outcome)
        let verdict = PipeExitCode.mergeVerdict(
            outcomes: outcomes, flakyPolicy: flakyPolicy, userCancelled: record.status == .cancelled)
        let line: String
        switch verdict {
        case .success: line = "✅ merge gate passed"
        case .appFailure: line = "❌ merge gate failed: the app's build or tests failed"
        case .environmentFailure: line = "⚠️ merge gate not judged: host configuration or infrastructure (not the app)"
        case .cancelled: line = "⏹ merge gate not judged: the run was cancelled"
        case .usage: line = "⚠️ merge gate not judged: the request was invalid"
        }
        // The summary holds test names, failure messages and log lines from the host: never markup.
        return "\(line) — run \(ChatText.code(record.runID))\n\n" + ChatText.block(MarkdownSummary.render(record))
    }

    /// How the run ended, with what is still pending.
    public static func final(_ record: RunRecord) -> String {
        let id = ChatText.code(record.runID)
        var text: String
        switch record.status {
        case .finished:
            switch record.exitCode.flatMap(PipeExitCode.init(rawValue:)) {
            case .success?: text = "✅ run \(id) finished: merge gate passed (exit 0)"
            case .appFailure?: text = "❌ run \(id) finished: the app failed (exit 1)"
            case .environmentFailure?:
                text =
                    "⚠️ run \(id) finished without a verdict on the app: host configuration or infrastructure (exit 3)"
            case .usage?: text = "⚠️ run \(id) did not run: the request was invalid (exit 2)"
            case .cancelled?: text = "⏹ run \(id) was cancelled (exit 130)"
            case nil: text = "run \(id) finished"
            }
        case .cancelled: text = "⏹ run \(id) was cancelled"
        case .interrupted: text = "⚠️ run \(id) was interrupted: its coordinator stopped"
        case .queued, .running: text = "run \(id) is \(record.status.rawValue)"
        }
        if let problem = record.problem { text += "\n> \(ChatText.plain(problem))" }
        let pending = record.layers.filter { $0.outcome == .awaitingSignoff }.map(\.name)
        if !pending.isEmpty {
            text += "\nrelease checklists awaiting sign-off: \(pending.map(ChatText.code).joined(separator: ", "))"
            text += " — `/pipe signoff \(ChatText.plain(record.runID)) &lt;layer&gt; pass|fail field=value… note=\"…\"`"
        }
        if let seconds = record.durationSeconds { text += "\n(\(Int(seconds.rounded())) s)" }
        return text
    }

    /// `/pipe status`.
    public static func status(_ record: RunRecord) -> String {
        var text = "run \(ChatText.code(record.runID)) · \(ChatText.plain(record.pipeline)) @ "
        text += ChatText.plain(record.request.ref) + " · \(record.status.rawValue)"
        if let code = record.exitCode { text += " (exit \(code))" }
        text += "\nrequested by \(ChatText.plain(record.request.requestedBy)) at \(record.startedAt)"
        if let commit = record.commit { text += " · commit \(ChatText.code(String(commit.prefix(12))))" }
        if let host = record.host { text += " · host \(ChatText.code(host.name))" }
        if let udid = record.simulator?.simulator.udid { text += " · UDID \(ChatText.code(udid))" }
        for layer in record.layers {
            text += "\n• \(ChatText.plain(layer.name)) (\(layer.gate.rawValue)): \(layer.outcome?.rawValue ?? "—")"
            if let first = layer.evidence.first, layer.outcome != .passed { text += " — \(ChatText.plain(first))" }
            let coverage = CoverageFacts.targets(of: layer).map {
                "\(ChatText.code($0.name)) " + String(format: "%.1f%%", $0.percent)
            }
            if !coverage.isEmpty { text += " · coverage " + coverage.joined(separator: ", ") }
        }
        if let problem = record.problem { text += "\n> \(ChatText.plain(problem))" }
        return text
    }

    /// `/pipe runs`.
    public static func runs(_ runs: [RunSummary], pipeline: String?) -> String {
        guard !runs.isEmpty else {
            return pipeline.map { "no runs of \(ChatText.plain($0)) yet" } ?? "no runs yet"
        }
        var lines = ["latest runs" + (pipeline.map { " of \(ChatText.plain($0))" } ?? "") + ":"]
        for run in runs {
            var line = "• \(ChatText.code(run.runID)) \(ChatText.plain(run.pipeline)) · \(run.status.rawValue)"
            if let code = run.exitCode { line += " (exit \(code))" }
            line += " · by \(ChatText.plain(run.requestedBy)) via \(ChatText.plain(run.trigger))"
            lines.append(line)
        }
        return lines.joined(separator: "\n")
    }

    /// `/pipe gate`.
    public static func gate(_ report: ChatGateReport) -> String {
        let mark: String
        switch report.verdict {
        case .passed: mark = "✅"
        case .failed: mark = "❌"
        case .couldNotJudge: mark = "⚠️"
        case .pendingSignoff: mark = "⏳"
        }
        var text = "\(mark) \(ChatText.plain(report.headline)) — run \(ChatText.code(report.runID))"
        for layer in report.layers {
            text +=
                "\n• \(ChatText.plain(layer.name)) (\(layer.gate.rawValue)): \(layer.outcome?.rawValue ?? "not run")"
            text += " — \(ChatText.plain(layer.reason))"
        }
        return text
    }

    /// `/pipe hosts`.
    public static func hosts(_ hosts: [ChatHostReport]) -> String {
        guard !hosts.isEmpty else { return "no hosts are configured" }
        return hosts.map { host in
            var line =
                "• \(ChatText.code(host.name)) \(ChatText.plain(host.endpoint)) · \(host.busy)/\(host.capacity) busy"
            switch host.usable {
            case true?: line += " · healthy"
            case false?: line += " · out of rotation: \(ChatText.plain(host.problem ?? "unhealthy"))"
            case nil: line += " · not checked yet"
            }
            return line
        }.joined(separator: "\n")
    }

    /// A recorded sign-off.
    public static func signedOff(_ receipt: ChatSignoffReceipt) -> String {
        var text = receipt.verdict == .pass ? "✓ " : "✗ "
        text += "\(ChatText.plain(receipt.layer)) of run \(ChatText.code(receipt.runID)) "
        text += receipt.verdict == .pass ? "signed off" : "rejected"
        text += " by \(ChatText.plain(receipt.signedBy)) (sign-off #\(receipt.signoffID))"
        if let release = receipt.releaseGate { text += "\n\(ChatText.plain(release))" }
        return text
    }
}
