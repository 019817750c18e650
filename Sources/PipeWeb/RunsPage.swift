import Foundation
import PipeCore

/// `/runs`: the latest runs, filtered, with their gates; new runs appear while the page is open.
enum RunsPage {
    static func body(rows: [WebRunRow], filter: WebRunsFilter, viewer: WebViewer) -> String {
        var html = "<h1>Runs</h1><form class=\"filter\" method=\"get\" action=\"\(viewer.link("runs"))\">"
        for (name, value) in [
            ("pipeline", filter.pipeline), ("branch", filter.branch), ("status", filter.status),
            ("trigger", filter.trigger), ("person", filter.person),
        ] {
            html += "<input type=\"text\" name=\"\(name)\" placeholder=\"\(name)\" aria-label=\"\(name)\""
            html += " value=\"\(HTMLText.escape(value ?? ""))\" size=\"10\">"
        }
        html += "<button type=\"submit\">Filter</button></form>"
        let events = viewer.base + "runs/events" + (filter.queryString.isEmpty ? "" : "?" + filter.queryString)
        html += "<div class=\"scroll\"><table><thead><tr><th>Run</th><th>Pipeline</th><th>Branch</th><th>Status</th>"
        html += "<th>Merge</th><th>Release</th><th>Commit</th><th>Host</th><th>Duration</th><th>Who</th></tr></thead>"
        html += "<tbody id=\"live-runs\" data-events=\"\(HTMLText.escape(events))\">"
        html += rowsHTML(rows, viewer: viewer) + "</tbody></table></div>"
        if rows.isEmpty { html += "<p>No runs match.</p>" }
        return html
    }

    /// The rows alone: the page's table body, and what the live updates replace it with.
    static func rowsHTML(_ rows: [WebRunRow], viewer: WebViewer) -> String {
        rows.map { row in
            var html = "<tr><td><a href=\"\(viewer.link("runs/" + HTMLText.urlComponent(row.runID)))\">"
            html += "\(HTMLText.escape(row.runID))</a></td><td>\(HTMLText.escape(row.pipeline))</td>"
            html += "<td>\(HTMLText.escape(row.branch))</td><td>\(WebPage.badge(row.status))</td>"
            html += "<td>\(WebPage.badge(row.merge))</td><td>\(WebPage.badge(row.release))</td>"
            html += "<td><code>\(HTMLText.escape(String((row.commit ?? "").prefix(10))))</code></td>"
            html += "<td>\(HTMLText.escape(row.host ?? ""))</td><td>\(WebPage.duration(row.durationSeconds))</td>"
            html += "<td>\(HTMLText.escape(row.requestedBy)) <small>(\(HTMLText.escape(row.trigger)))</small></td></tr>"
            return html
        }.joined()
    }
}
