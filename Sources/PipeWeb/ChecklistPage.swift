import Foundation
import PipeBasics
import PipeCore

/// `/runs/<run id>/layers/<layer>`: a manual layer's checklist, its sign-offs and the form that signs it.
enum ChecklistPage {
    struct Twin: Encodable {
        var runID: String
        var pipeline: String
        var layer: String
        var outcome: String?
        var items: [String]
        var target: String
        var fields: [String]
        var fieldsOnFail: [String]
        var signoffs: [Signoff]
        var problem: String?
    }

    static func twin(_ run: StoredRun, layer: RunRecord.LayerRecord, checklist: WebChecklist) -> Twin {
        Twin(
            runID: run.record.runID, pipeline: run.record.pipeline, layer: layer.name,
            outcome: WebRunRow.withSignoffs(run).layers.first { $0.name == layer.name }?.outcome?.rawValue,
            items: checklist.items, target: checklist.target, fields: checklist.fields,
            fieldsOnFail: checklist.fieldsOnFail, signoffs: run.signoffs.filter { $0.layer == layer.name },
            problem: checklist.problem)
    }

    /// - Parameters:
    ///   - refusal: the problems of a sign-off just refused, shown above the form with what was typed kept.
    ///   - mayRefuse: why the viewer may not sign, when they may not (the form is then not shown).
    static func body(
        _ twin: Twin, viewer: WebViewer, refusal: [String] = [], typed: [String: String] = [:], notice: String? = nil,
        mayNotSign: String? = nil
    ) -> String {
        var html = "<h1>\(HTMLText.escape(twin.layer)) · run "
        html +=
            "<a href=\"\(viewer.link("runs/" + HTMLText.urlComponent(twin.runID)))\">\(HTMLText.escape(twin.runID))</a></h1>"
        html += "<p>\(WebPage.badge(twin.outcome ?? "pending")) · checked on a \(HTMLText.escape(twin.target))</p>"
        if let notice { html += "<p class=\"notice\" role=\"status\">\(HTMLText.escape(notice))</p>" }
        if let problem = twin.problem { html += "<p class=\"refusal\">\(HTMLText.escape(problem))</p>" }
        html += "<h2>Checks</h2><ol class=\"items\">"
        html += twin.items.map { "<li>\(HTMLText.escape($0))</li>" }.joined() + "</ol>"
        html += "<h2>Sign off</h2>"
        if !refusal.isEmpty {
            html += "<div class=\"refusal\" role=\"alert\" id=\"refusal\"><p>Refused; nothing was recorded:</p><ul>"
            html += refusal.map { "<li>\(HTMLText.escape($0))</li>" }.joined() + "</ul></div>"
        }
        if let mayNotSign {
            html += "<p class=\"refusal\">\(HTMLText.escape(mayNotSign))</p>"
        } else if twin.problem == nil {
            let action = viewer.link(
                "runs/\(HTMLText.urlComponent(twin.runID))/layers/\(HTMLText.urlComponent(twin.layer))/signoff")
            html += "<form method=\"post\" action=\"\(action)\">\(viewer.csrfField)"
            html += "<fieldset><legend>Result</legend>"
            let result = typed["result"] ?? ""
            for value in ["pass", "fail"] {
                let checked = result == value ? " checked" : ""
                html +=
                    "<label><input type=\"radio\" name=\"result\" value=\"\(value)\" id=\"result-\(value)\"\(checked)"
                html += "\(value == "pass" ? " required" : "")> \(value)</label>"
            }
            html += "</fieldset>"
            for field in twin.fields + twin.fieldsOnFail {
                let onFail = twin.fieldsOnFail.contains(field) && !twin.fields.contains(field)
                let name = HTMLText.escape("field." + field)
                html += "<label for=\"\(name)\">\(HTMLText.escape(field))"
                html += onFail ? " <small>(required when the result is fail)</small>" : " <small>(required)</small>"
                html += "</label><input type=\"text\" id=\"\(name)\" name=\"\(name)\""
                html += " value=\"\(HTMLText.escape(typed["field." + field] ?? ""))\">"
            }
            html += "<label for=\"note\">Note</label><textarea id=\"note\" name=\"note\" rows=\"3\">"
            html += "\(HTMLText.escape(typed["note"] ?? ""))</textarea>"
            html +=
                "<p><button type=\"submit\" id=\"sign\">Sign off as \(HTMLText.escape(viewer.user ?? ""))</button></p>"
            html += "</form>"
        }
        html += "<h2>History</h2>" + history(twin.signoffs)
        return html
    }

    /// The sign-offs, oldest first; none is ever edited or removed.
    static func history(_ signoffs: [Signoff]) -> String {
        guard !signoffs.isEmpty else { return "<p>No sign-offs yet.</p>" }
        var html = "<div class=\"scroll\"><table><thead><tr><th>#</th><th>Layer</th><th>Decision</th><th>By</th>"
        html += "<th>When</th><th>Note and fields</th></tr></thead><tbody>"
        for signoff in signoffs {
            html += "<tr><td>\(signoff.id)</td><td>\(HTMLText.escape(signoff.layer))</td>"
            html += "<td>\(WebPage.badge(signoff.decision.rawValue))</td><td>\(HTMLText.escape(signoff.signedBy))</td>"
            html += "<td>\(UTCTimestamp.iso8601(signoff.at))</td><td>\(HTMLText.escape(signoff.note ?? ""))</td></tr>"
        }
        return html + "</tbody></table></div>"
    }
}
