import Foundation
import PipeCore

/// `/runs/<run id>`: everything about one run (the page forge statuses link to).
enum RunPage {
    /// The JSON twin: the run record as `summary.json` has it, the sign-offs and both gates.
    struct Twin: Encodable {
        var record: RunRecord
        var signoffs: [Signoff]
        var gates: [GateTwin]
        var artifacts: [ArtifactRecord]
    }

    struct GateTwin: Encodable {
        var gate: String
        var verdict: String
        var headline: String
        var layers: [LayerTwin]
    }

    struct LayerTwin: Encodable {
        var name: String
        var standing: String
        var reason: String
    }

    static func twin(_ run: StoredRun) -> Twin {
        let judged = WebRunRow.withSignoffs(run)
        let gates = [Gate.merge, .release].map { gate in
            let evaluation = GateEvaluation.evaluate(gate, record: judged)
            return GateTwin(
                gate: gate.rawValue, verdict: evaluation.verdict.rawValue, headline: evaluation.headline,
                layers: evaluation.layers.map {
                    LayerTwin(name: $0.name, standing: $0.standing.rawValue, reason: $0.reason)
                })
        }
        return Twin(record: run.record, signoffs: run.signoffs, gates: gates, artifacts: run.allArtifacts)
    }

    static func body(_ run: StoredRun, extras: WebRunExtras, viewer: WebViewer) -> String {
        let record = run.record
        let id = HTMLText.urlComponent(record.runID)
        let twin = twin(run)
        var html = "<h1>Run \(HTMLText.escape(record.runID)) · \(HTMLText.escape(record.pipeline))</h1><dl>"
        func fact(_ name: String, _ value: String?) {
            guard let value, !value.isEmpty else { return }
            html += "<dt>\(name)</dt><dd>\(HTMLText.escape(value))</dd>"
        }
        fact("Status", record.status.rawValue)
        fact("Branch", record.resolvedRef ?? record.request.ref)
        fact("Commit", record.commit)
        fact("Asked by", record.request.requestedBy + " (" + record.request.trigger + ")")
        fact("Why", record.request.reason)
        fact("Host", record.host.map { "\($0.name) (\($0.endpoint))" })
        fact("Xcode", record.xcode)
        fact("Simulator", record.simulator.map { "\($0.simulator.name), \($0.simulator.runtimeName) (\($0.reason))" })
        fact("UDID", record.request.udid ?? record.layers.flatMap(\.attempts).compactMap(\.simulatorUDID).first)
        fact("Started", record.startedAt)
        fact("Duration", WebPage.duration(record.durationSeconds))
        fact("Problem", record.problem)
        html += "</dl><p><a href=\"\(viewer.link("runs/\(id)/log"))\">Log</a>"
        html += " · <a href=\"\(viewer.link("runs/\(id)?format=json"))\">JSON</a></p>"

        html += "<h2>Gates</h2><ul>"
        for gate in twin.gates {
            html += "<li>\(WebPage.badge(gate.verdict)) \(HTMLText.escape(gate.headline))</li>"
        }
        html += "</ul><h2>Layers</h2><div class=\"scroll\"><table><thead><tr><th>Layer</th><th>Gate</th>"
        html += "<th>Outcome</th><th>Evidence</th><th>Attempts</th></tr></thead><tbody>"
        let judged = WebRunRow.withSignoffs(run)
        for layer in judged.layers {
            let name = HTMLText.urlComponent(layer.name)
            var cell = HTMLText.escape(layer.name)
            if layer.plugin == "checklist" {
                cell = "<a href=\"\(viewer.link("runs/\(id)/layers/\(name)"))\">\(cell)</a> (checklist)"
            }
            html += "<tr><td>\(cell)</td><td>\(layer.gate.rawValue)</td>"
            html += "<td>\(WebPage.badge(layer.outcome?.rawValue ?? "pending"))</td>"
            html += "<td>\(layer.evidence.map(HTMLText.escape).joined(separator: "<br>"))</td><td>"
            html += layer.attempts.map { attempt in
                var text = "#\(attempt.attempt) \(attempt.outcome?.rawValue ?? "running")"
                if let exit = attempt.exit { text += ", exit \(exit)" }
                if let udid = attempt.simulatorUDID { text += ", \(udid)" }
                if let seconds = attempt.durationSeconds { text += ", \(WebPage.duration(seconds))" }
                return HTMLText.escape(text)
            }.joined(separator: "<br>")
            html += "</td></tr>"
        }
        html += "</tbody></table></div>"

        let failing = record.layers.flatMap { layer in layer.tests.filter { $0.status == .failed }.map { (layer, $0) } }
        if !failing.isEmpty {
            html += "<h2>Failing tests</h2>"
            for (layer, test) in failing {
                let history = viewer.link("tests?id=\(HTMLText.urlComponent(test.identifier))")
                html += "<h3><a href=\"\(history)\">\(HTMLText.escape(test.identifier))</a> "
                html += "<small>(\(HTMLText.escape(layer.name)))</small></h3>"
                if let location = test.failureLocation { html += "<p><code>\(HTMLText.escape(location))</code></p>" }
                if let message = test.failureMessage { html += "<pre>\(HTMLText.escape(message))</pre>" }
                for image in extras.images(layer, test) {
                    let source = viewer.link("runs/\(id)/images/\(pathLink(image))")
                    html += "<p><img class=\"shot\" src=\"\(source)\" alt=\"screenshot of "
                    html += "\(HTMLText.escape(test.identifier))\"></p>"
                }
            }
        }

        let coverage = extras.coverage(record)
        if !coverage.isEmpty {
            html += "<h2>Coverage</h2><div class=\"scroll\"><table><thead><tr><th>Target</th><th>Lines</th>"
            html += "<th>Covered</th></tr></thead><tbody>"
            for row in coverage {
                html +=
                    "<tr><td>\(HTMLText.escape(row.target))</td><td>\(row.coveredLines) / \(row.executableLines)</td>"
                html += "<td>\(String(format: "%.1f %%", row.percent))</td></tr>"
            }
            html += "</tbody></table></div>"
        }

        html += "<h2>Artifacts</h2>"
        let artifacts = run.allArtifacts
        if artifacts.isEmpty {
            html += "<p>None recorded.</p>"
        } else {
            html += "<p>Downloads need a signed-in user: result bundles can hold values masked elsewhere.</p><ul>"
            for artifact in artifacts {
                let link = viewer.link("runs/\(id)/artifacts/\(pathLink(artifact.path))")
                let suffix = artifact.kind == .resultBundle ? " (result bundle, as .tar)" : ""
                html += "<li><a href=\"\(link)\">\(HTMLText.escape(artifact.path))</a>\(suffix)</li>"
            }
            html += "</ul>"
        }
        if !run.signoffs.isEmpty {
            html += "<h2>Sign-offs</h2>" + ChecklistPage.history(run.signoffs)
        }
        return html
    }

    /// A relative path as link segments, each escaped.
    static func pathLink(_ path: String) -> String {
        path.split(separator: "/").map { HTMLText.urlComponent(String($0)) }.joined(separator: "/")
    }
}

/// Per-target coverage as the run page shows it.
public struct WebCoverageRow: Sendable, Equatable, Encodable {
    public var target: String
    public var coveredLines: Int
    public var executableLines: Int

    public init(target: String, coveredLines: Int, executableLines: Int) {
        self.target = target
        self.coveredLines = coveredLines
        self.executableLines = executableLines
    }

    public var percent: Double { executableLines == 0 ? 0 : Double(coveredLines) * 100 / Double(executableLines) }
}

/// What the run record holds beyond the core fields (attachments, coverage), read by the functions the caller
/// gives; the defaults read what the xcodebuild-test plugin records (`AttachmentFacts`, `CoverageFacts`).
public struct WebRunExtras: Sendable {
    /// Paths (relative to the project folder) of images attached to a failing test; only those whose bytes are
    /// PNG or JPEG are shown.
    public var images: @Sendable (RunRecord.LayerRecord, TestCaseResult) -> [String]
    public var coverage: @Sendable (RunRecord) -> [WebCoverageRow]

    public init(
        images: @escaping @Sendable (RunRecord.LayerRecord, TestCaseResult) -> [String] = recordedImages,
        coverage: @escaping @Sendable (RunRecord) -> [WebCoverageRow] = recordedCoverage
    ) {
        self.images = images
        self.coverage = coverage
    }

    /// The test's attachments whose bytes were PNG or JPEG when they came back (the page checks them again).
    @Sendable public static func recordedImages(_ layer: RunRecord.LayerRecord, _ test: TestCaseResult) -> [String] {
        AttachmentFacts.artifacts(of: test.identifier, in: layer).filter { $0.attachment?.detectedType != nil }
            .map(\.path)
    }

    /// Each layer's measured targets; a target is named with its layer when more than one layer measured any.
    @Sendable public static func recordedCoverage(_ record: RunRecord) -> [WebCoverageRow] {
        let measured = record.layers.map { ($0.name, CoverageFacts.targets(of: $0)) }.filter { !$0.1.isEmpty }
        return measured.flatMap { layer, targets in
            targets.map {
                WebCoverageRow(
                    target: measured.count > 1 ? "\(layer) · \($0.name)" : $0.name, coveredLines: $0.coveredLines,
                    executableLines: $0.executableLines)
            }
        }
    }
}
