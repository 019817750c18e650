import Foundation
import PipeBasics
import PipeChatOps
import PipeCore

/// `/flaky`, `/tests?id=…` and `/hosts`: what `pipe runs flaky`, `pipe runs history` and `pipe hosts list` show.
enum HistoryPages {
    struct FlakyTwin: Encodable {
        var pipeline: String
        var layer: String
        var identifier: String
        var commit: String
        var passes: Int
        var failures: Int
        var runIDs: [String]
        var lastSeen: Date
    }

    struct HistoryTwin: Encodable {
        var runID: String
        var pipeline: String
        var layer: String
        var attempt: Int
        var commit: String?
        var status: String
        var durationSeconds: Double?
        var failureMessage: String?
        var at: Date
    }

    struct HostTwin: Encodable {
        var name: String
        var endpoint: String
        var capacity: Int
        var busy: Int
        var usable: Bool?
        var problem: String?
        var checkedAt: Date?
    }

    static func flakyTwin(_ tests: [FlakyTest]) -> [FlakyTwin] {
        tests.map {
            FlakyTwin(
                pipeline: $0.pipeline, layer: $0.layer, identifier: $0.identifier, commit: $0.commit,
                passes: $0.passes, failures: $0.failures, runIDs: $0.runIDs, lastSeen: $0.lastSeen)
        }
    }

    static func flaky(_ tests: [FlakyTwin], viewer: WebViewer) -> String {
        var html = "<h1>Flaky tests</h1><p>Tests that both passed and failed at the same commit.</p>"
        guard !tests.isEmpty else { return html + "<p>None found.</p>" }
        html += "<div class=\"scroll\"><table><thead><tr><th>Test</th><th>Pipeline / layer</th><th>Commit</th>"
        html += "<th>Passed</th><th>Failed</th><th>Last seen</th></tr></thead><tbody>"
        for test in tests {
            html += "<tr><td><a href=\"\(viewer.link("tests?id=\(HTMLText.urlComponent(test.identifier))"))\">"
            html += "\(HTMLText.escape(test.identifier))</a></td>"
            html += "<td>\(HTMLText.escape(test.pipeline)) / \(HTMLText.escape(test.layer))</td>"
            html += "<td><code>\(HTMLText.escape(String(test.commit.prefix(10))))</code></td>"
            html +=
                "<td>\(test.passes)</td><td>\(test.failures)</td><td>\(UTCTimestamp.iso8601(test.lastSeen))</td></tr>"
        }
        return html + "</tbody></table></div>"
    }

    static func historyTwin(_ entries: [TestHistoryEntry]) -> [HistoryTwin] {
        entries.map {
            HistoryTwin(
                runID: $0.runID, pipeline: $0.pipeline, layer: $0.layer, attempt: $0.attempt, commit: $0.commit,
                status: $0.status.rawValue, durationSeconds: $0.durationSeconds, failureMessage: $0.failureMessage,
                at: $0.at)
        }
    }

    static func history(_ identifier: String, _ entries: [HistoryTwin], viewer: WebViewer) -> String {
        var html = "<h1>History of \(HTMLText.escape(identifier))</h1>"
        guard !entries.isEmpty else { return html + "<p>No results recorded for this test.</p>" }
        html += "<div class=\"scroll\"><table><thead><tr><th>Run</th><th>Layer</th><th>Attempt</th><th>Status</th>"
        html += "<th>Duration</th><th>Commit</th><th>Message</th></tr></thead><tbody>"
        for entry in entries {
            html += "<tr><td><a href=\"\(viewer.link("runs/" + HTMLText.urlComponent(entry.runID)))\">"
            html += "\(HTMLText.escape(entry.runID))</a></td><td>\(HTMLText.escape(entry.layer))</td>"
            html += "<td>\(entry.attempt)</td><td>\(WebPage.badge(entry.status))</td>"
            html += "<td>\(WebPage.duration(entry.durationSeconds))</td>"
            html += "<td><code>\(HTMLText.escape(String((entry.commit ?? "").prefix(10))))</code></td>"
            html += "<td>\(HTMLText.escape(entry.failureMessage ?? ""))</td></tr>"
        }
        return html + "</tbody></table></div>"
    }

    static func hostsTwin(_ hosts: [ChatHostReport]) -> [HostTwin] {
        hosts.map {
            HostTwin(
                name: $0.name, endpoint: $0.endpoint, capacity: $0.capacity, busy: $0.busy, usable: $0.usable,
                problem: $0.problem, checkedAt: $0.checkedAt)
        }
    }

    static func hosts(_ hosts: [HostTwin]) -> String {
        var html = "<h1>Hosts</h1><p>What the run store knows; this page never connects to a host.</p>"
        guard !hosts.isEmpty else { return html + "<p>No hosts in the hosts file.</p>" }
        html += "<div class=\"scroll\"><table><thead><tr><th>Host</th><th>Health</th><th>Slots in use</th>"
        html += "<th>Checked</th></tr></thead><tbody>"
        for host in hosts {
            let health = host.usable.map { $0 ? "usable" : "unusable" } ?? "never checked"
            html += "<tr><td>\(HTMLText.escape(host.name))<br><small>\(HTMLText.escape(host.endpoint))</small></td>"
            html += "<td>\(WebPage.badge(health == "usable" ? "passed" : health == "unusable" ? "failed" : "pending"))"
            html += " \(HTMLText.escape(health))\(host.problem.map { ": " + HTMLText.escape($0) } ?? "")</td>"
            html += "<td>\(host.busy) of \(host.capacity)</td>"
            html += "<td>\(host.checkedAt.map(UTCTimestamp.iso8601) ?? "")</td></tr>"
        }
        return html + "</tbody></table></div>"
    }
}
