import Foundation
import PipeCore

/// A run as Markdown short enough for a pull-request comment or a chat message: the verdict, a table of layers,
/// the failures with message and location, the flaky tests, each layer's classification with its evidence, the
/// sign-offs still pending, line coverage per target, and where the artifacts are (a failing test's attachments
/// beside its failure).
///
/// Text from the run (test names, messages, paths, evidence) is put in code spans and blocks, so it never turns
/// into markup. Long lists are cut (`failureLimit`); the JUnit report and the run record have everything.
/// Output is a pure function of its input.
public enum MarkdownSummary {
    /// Failures listed in full; the rest are counted.
    public static let failureLimit = 20
    /// Evidence lines shown per layer.
    public static let evidenceLimit = 8

    /// - Parameters:
    ///   - record: the run record.
    ///   - earlierRuns: per layer, results of runs before the final ones (they make passing tests flaky).
    ///   - redactor: applied to every string taken from the run.
    ///   - coverageBefore: per layer, the coverage of the last earlier run of the same branch, for the change.
    public static func render(
        _ record: RunRecord, earlierRuns: [String: [TestCaseResult]] = [:], redactor: SecretRedactor = .none,
        coverageBefore: [String: [CoverageFacts.Target]] = [:]
    ) -> String {
        let redacted = Redacted(redactor: redactor)
        let layers = ReportedLayer.layers(of: record, earlierRuns: earlierRuns)
        var text = headline(record, redacted) + "\n\n"
        if let facts = facts(record, redacted) { text += facts + "\n\n" }
        if let problem = record.problem { text += "**Problem:** \(redacted.code(problem))\n\n" }
        if !layers.isEmpty { text += table(layers, redacted) + "\n" }
        text += sharedBuilds(record, redactor: redactor)
        text += buildCaches(record, redactor: redactor)
        text += failures(layers, redacted)
        text += flaky(layers, redacted)
        text += classification(layers, redacted)
        text += pending(layers, record: record, redacted)
        text += coverage(layers, before: coverageBefore, redacted)
        text += artifacts(layers, record: record, redacted)
        return text
    }

    // MARK: - Sections

    private static func headline(_ record: RunRecord, _ redacted: Redacted) -> String {
        let pipeline = redacted.plain(record.pipeline)
        guard let code = record.exitCode else {
            return "### \(mark(status: record.status)) \(pipeline): run \(record.status.rawValue)"
        }
        let verdict: String
        switch PipeExitCode(rawValue: code) {
        case .success?: verdict = "merge gate passed"
        case .appFailure?: verdict = "merge gate failed: the app's build or tests failed"
        case .environmentFailure?: verdict = "not verified: host configuration or infrastructure failure (not the app)"
        case .cancelled?: verdict = "cancelled"
        case .usage?, nil: verdict = "invalid request; nothing was verified"
        }
        let mark = code == 0 ? "✅" : (code == PipeExitCode.environmentFailure.rawValue ? "⚠️" : "❌")
        return "### \(mark) \(pipeline): \(verdict) (exit \(code))"
    }

    private static func facts(_ record: RunRecord, _ redacted: Redacted) -> String? {
        var parts: [String] = []
        if !record.runID.isEmpty { parts.append("run \(redacted.code(record.runID))") }
        if let commit = record.commit {
            let ref = record.resolvedRef ?? (record.request.ref.isEmpty ? nil : record.request.ref)
            parts.append(
                "commit \(redacted.code(String(commit.prefix(12))))" + (ref.map { " (\(redacted.code($0)))" } ?? ""))
        }
        if let host = record.host { parts.append("host \(redacted.code(host.name))") }
        if let choice = record.simulator {
            let simulator = choice.simulator
            parts.append(
                "\(redacted.plain(simulator.name)), \(redacted.plain(simulator.runtimeName)) (\(redacted.code(simulator.udid)))"
            )
        }
        if let xcode = record.xcode { parts.append(redacted.plain(xcode)) }
        if let seconds = record.durationSeconds { parts.append(duration(seconds)) }
        return parts.isEmpty ? nil : parts.joined(separator: " · ")
    }

    private static func table(_ layers: [ReportedLayer], _ redacted: Redacted) -> String {
        var text = "| Layer | Gate | Outcome | Tests | Time |\n|---|---|---|---|---|\n"
        for layer in layers {
            let outcome = layer.record.outcome
            let cells = [
                redacted.plain(layer.record.name), layer.record.gate.rawValue,
                "\(mark(outcome)) \(outcome?.rawValue ?? "unfinished")", layer.countsText ?? "—",
                layer.seconds.map(duration) ?? "—",
            ]
            text += "| " + cells.map(MarkdownText.cell).joined(separator: " | ") + " |\n"
        }
        return text
    }

    private static func failures(_ layers: [ReportedLayer], _ redacted: Redacted) -> String {
        let failed = layers.flatMap { layer in
            layer.tests.filter { $0.result.status == .failed }.map { (layer.record, $0.result) }
        }
        guard !failed.isEmpty else { return "" }
        var text = "#### Failures\n\n"
        for (layer, result) in failed.prefix(failureLimit) {
            var line = "- **\(redacted.plain(layer.name))** · \(redacted.code(result.identifier))"
            if let location = result.failureLocation { line += " at \(redacted.code(location))" }
            text += line + "\n"
            if let message = result.failureMessage {
                text += MarkdownText.block(redacted.text(message), indent: 2)
            }
            for attachment in AttachmentFacts.artifacts(of: result.identifier, in: layer) {
                text += "  - attached: " + redacted.code(attachment.path)
                // Only the bytes say what a file is; a type from its name is marked as claimed.
                let claimed = attachment.attachment.map { "claimed \(redacted.plain($0.claimedType))" } ?? "a file"
                text += " (" + (attachment.attachment?.detectedType ?? claimed)
                text += attachment.bytes.map { ", \(ByteCount.text($0))" } ?? ""
                text += ")\n"
            }
        }
        if failed.count > failureLimit {
            text += "- … and \(failed.count - failureLimit) more (see the JUnit report)\n"
        }
        return text + "\n"
    }

    private static func flaky(_ layers: [ReportedLayer], _ redacted: Redacted) -> String {
        let flaky = layers.flatMap { layer in layer.tests.filter(\.isFlaky).map { (layer.record.name, $0) } }
        guard !flaky.isEmpty else { return "" }
        var text = "#### Flaky tests\n\n"
        for (layer, test) in flaky.prefix(failureLimit) {
            let runs = test.earlierFailures.count
            var line = "- **\(redacted.plain(layer))** · \(redacted.code(test.result.identifier)) failed "
            line += runs == 1 ? "once" : "\(runs) times"
            line += " before passing"
            if let first = test.earlierFailures.first, let message = first.failureMessage {
                let location = first.failureLocation.map { "\($0): " } ?? ""
                line += ": \(redacted.code(location + message))"
            }
            text += line + "\n"
        }
        if flaky.count > failureLimit { text += "- … and \(flaky.count - failureLimit) more\n" }
        return text + "\n"
    }

    private static func classification(_ layers: [ReportedLayer], _ redacted: Redacted) -> String {
        let explained = layers.filter { $0.record.outcome != nil }
        guard !explained.isEmpty else { return "" }
        var text = "#### Classification\n\n"
        for layer in explained {
            let outcome = layer.record.outcome?.rawValue ?? "unfinished"
            var line = "- **\(redacted.plain(layer.record.name))**: \(outcome)"
            if let exit = layer.exit { line += " (exit \(redacted.code(exit)))" }
            if layer.record.attempts.count > 1 { line += " after \(layer.record.attempts.count) attempts" }
            text += line + "\n"
            for evidence in layer.record.evidence.prefix(evidenceLimit) { text += "  - \(redacted.code(evidence))\n" }
            if layer.record.evidence.count > evidenceLimit {
                text += "  - … \(layer.record.evidence.count - evidenceLimit) more in the run record\n"
            }
        }
        return text + "\n"
    }

    private static func pending(_ layers: [ReportedLayer], record: RunRecord, _ redacted: Redacted) -> String {
        let waiting = layers.filter { $0.record.outcome == .awaitingSignoff }
        guard !waiting.isEmpty else { return "" }
        var text = "#### Pending sign-offs\n\n"
        for layer in waiting {
            text += "- [ ] **\(redacted.plain(layer.record.name))** (\(layer.record.gate.rawValue) gate): "
            text += redacted.code("pipe signoff \(record.runID) \(layer.record.name)") + "\n"
        }
        return text + "\n"
    }

    /// Each layer's measured targets, with the change against the branch's last run where it measured them too.
    private static func coverage(
        _ layers: [ReportedLayer], before: [String: [CoverageFacts.Target]], _ redacted: Redacted
    ) -> String {
        let measured = layers.map { ($0.record.name, CoverageFacts.targets(of: $0.record)) }.filter { !$0.1.isEmpty }
        guard !measured.isEmpty else { return "" }
        var text = "#### Coverage\n\n| Layer | Target | Lines | Covered | Change |\n|---|---|---|---|---|\n"
        for (layer, targets) in measured {
            for target in targets {
                let earlier = before[layer]?.first { $0.name == target.name }
                let cells = [
                    redacted.plain(layer), redacted.code(target.name),
                    "\(target.coveredLines) / \(target.executableLines)", String(format: "%.1f%%", target.percent),
                    earlier.map { change(target.percent - $0.percent) } ?? "—",
                ]
                text += "| " + cells.map(MarkdownText.cell).joined(separator: " | ") + " |\n"
            }
        }
        return text + "\n"
    }

    /// `+1.2 pp`, `−0.5 pp`, `±0 pp`: percentage points, rounded to a tenth.
    public static func change(_ points: Double) -> String {
        let rounded = (points * 10).rounded() / 10
        if rounded == 0 { return "±0 pp" }
        return (rounded > 0 ? "+" : "−") + String(format: "%.1f pp", abs(rounded))
    }

    /// Each layer's artifacts; attachments are counted here, since the failures list them beside their test.
    private static func artifacts(_ layers: [ReportedLayer], record: RunRecord, _ redacted: Redacted) -> String {
        let perLayer = layers.compactMap { layer -> (String, [ArtifactRecord])? in
            let artifacts = layer.record.attempts.flatMap(\.artifacts)
            return artifacts.isEmpty ? nil : (layer.record.name, artifacts)
        }
        guard !perLayer.isEmpty else { return "" }
        var text = "#### Artifacts\n\n"
        for (layer, artifacts) in perLayer {
            text += "- **\(redacted.plain(layer))**: "
            var parts = artifacts.filter { $0.kind != .attachment }.map { artifact in
                redacted.code(artifact.path) + (artifact.bytes.map { " (\(ByteCount.text($0)))" } ?? "")
            }
            let attachments = artifacts.filter { $0.kind == .attachment }.count
            if attachments > 0 { parts.append("\(attachments) attachment\(attachments == 1 ? "" : "s")") }
            text += parts.joined(separator: ", ") + "\n"
        }
        return text + "\n"
    }

    // MARK: - Words

    private static func mark(_ outcome: LayerOutcome?) -> String {
        switch outcome {
        case .passed?, .signedOff?: return "✅"
        case .flaky?: return "🟡"
        case .testsFailed?, .buildFailed?, .timedOut?, .rejected?: return "❌"
        case .hostConfig?, .infrastructure?, .pluginError?: return "⚠️"
        case .skipped?, .cancelled?: return "⏭️"
        case .awaitingSignoff?: return "⏳"
        case nil: return "…"
        }
    }

    private static func mark(status: RunStatus) -> String {
        switch status {
        case .queued, .running: return "⏳"
        case .finished: return "✅"
        case .cancelled, .interrupted: return "⏹️"
        }
    }

    static func duration(_ seconds: Double) -> String {
        if seconds < 60 { return String(format: "%.1f s", seconds) }
        let whole = Int(seconds.rounded())
        if whole < 3600 { return "\(whole / 60) m \(whole % 60) s" }
        return "\(whole / 3600) h \(whole / 60 % 60) m"
    }

    /// Every string from the run goes through the redactor before it is escaped.
    private struct Redacted {
        let redactor: SecretRedactor
        func text(_ value: String) -> String { redactor.redact(value) }
        func code(_ value: String) -> String { MarkdownText.code(redactor.redact(value)) }
        func plain(_ value: String) -> String { MarkdownText.plain(redactor.redact(value)) }
    }
}
