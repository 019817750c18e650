import Foundation
import PipeCore
import PipeHTTP

extension WebEndpoint {
    /// Everything under `runs`.
    func runs(_ web: WebRequest, viewer: WebViewer) throws -> HTTPResponse {
        let segments = Array(web.segments.dropFirst())
        if segments.isEmpty {
            let filter = WebRunsFilter(query: web.head.query)
            let rows = try rows(filter)
            if web.wantsJSON { return WebPage.json(rows) }
            return WebPage.html(
                title: "Runs", viewer: viewer, body: RunsPage.body(rows: rows, filter: filter, viewer: viewer))
        }
        if segments == ["events"] { return runsEvents(WebRunsFilter(query: web.head.query), viewer: viewer) }
        guard let run = try store.run(segments[0]) else {
            return WebPage.message(
                404, title: "No such run", "the run store has no run \(segments[0]); the runs list shows those it has",
                viewer: viewer, json: web.wantsJSON)
        }
        let rest = Array(segments.dropFirst())
        switch rest.first {
        case nil:
            if web.wantsJSON { return WebPage.json(RunPage.twin(run)) }
            return WebPage.html(
                title: "Run \(run.record.runID)", viewer: viewer,
                body: RunPage.body(run, extras: extras, viewer: viewer))
        case "log":
            if rest == ["log", "events"] {
                // A reconnecting EventSource says what it last got; the page's `after` is where it first began.
                let after = (web.head.header("last-event-id") ?? web.head.query["after"]).flatMap { Int64($0) } ?? 0
                return logEvents(run, layer: web.head.query["layer"], after: after)
            }
            return try logPage(run, layer: web.head.query["layer"], web: web, viewer: viewer)
        case "layers" where rest.count == 2:
            return checklistPage(run, layerName: rest[1], web: web, viewer: viewer)
        case "artifacts" where rest.count > 1:
            guard web.user != nil else {
                return WebPage.message(
                    401, title: "Sign in first",
                    "downloads need a signed-in user: result bundles can hold values that are masked elsewhere",
                    viewer: viewer, json: web.wantsJSON)
            }
            return download(run, path: rest.dropFirst().joined(separator: "/"), viewer: viewer, web: web)
        case "images" where rest.count > 1:
            return image(run, path: rest.dropFirst().joined(separator: "/"))
        default:
            return WebPage.message(404, title: "Not found", "nothing is here", viewer: viewer, json: web.wantsJSON)
        }
    }

    func checklistPage(
        _ run: StoredRun, layerName: String, web: WebRequest, viewer: WebViewer, refusal: [String] = [],
        typed: [String: String] = [:], status: Int = 200
    ) -> HTTPResponse {
        guard let layer = run.record.layers.first(where: { $0.name == layerName }) else {
            return WebPage.message(
                404, title: "No such layer", "run \(run.record.runID) has no layer \(layerName)", viewer: viewer,
                json: web.wantsJSON)
        }
        let twin = ChecklistPage.twin(run, layer: layer, checklist: backend.checklist(run: run, layer: layerName))
        if web.wantsJSON { return WebPage.json(twin, status: status) }
        var mayNotSign: String?
        if let user = web.user {
            if !config.maySignoff(user: user, pipeline: run.record.pipeline, layer: layerName) {
                mayNotSign =
                    "\(user) may not sign off \(run.record.pipeline)/\(layerName); an admin adds the pattern "
                    + "to web.signoff.\(user)"
            }
        } else {
            mayNotSign = "sign in to sign off this checklist"
        }
        let notice = web.head.query["signed"].map { "Sign-off #\($0) recorded." }
        return WebPage.html(
            title: "\(layerName) · \(run.record.runID)", viewer: viewer,
            body: ChecklistPage.body(
                twin, viewer: viewer, refusal: refusal, typed: typed, notice: refusal.isEmpty ? notice : nil,
                mayNotSign: mayNotSign),
            status: status)
    }

    /// The output recorded so far, and (with the script) what follows while the run goes on.
    func logPage(_ run: StoredRun, layer: String?, web: WebRequest, viewer: WebViewer) throws -> HTTPResponse {
        var text = ""
        var last: Int64 = 0
        var cut = false
        while true {
            let batch = try store.events(runID: run.record.runID, after: last, layer: layer, limit: 500)
            for event in batch { text += Self.outputText(event) }
            last = batch.last?.sequence ?? last
            if text.utf8.count > Self.pageLogBytes {
                cut = true
                break
            }
            if batch.count < 500 { break }
        }
        let live = run.record.status == .running || run.record.status == .queued
        if web.wantsJSON {
            return WebPage.json(["text": text, "status": run.record.status.rawValue, "after": "\(last)"])
        }
        let id = HTMLText.urlComponent(run.record.runID)
        var query = "after=\(last)"
        if let layer { query += "&layer=" + HTMLText.urlComponent(layer) }
        var body = "<h1>Log of run <a href=\"\(viewer.link("runs/\(id)"))\">\(HTMLText.escape(run.record.runID))</a>"
        body += layer.map { " · " + HTMLText.escape($0) } ?? ""
        body += "</h1><p>Status: <span id=\"log-state\">\(HTMLText.escape(run.record.status.rawValue))</span>"
        body += live ? " (new output appears as it arrives)" : ""
        body += "</p>"
        if cut {
            body += "<p class=\"refusal\">Only the first part is shown; download the layer's log for all of it.</p>"
        }
        let events = live ? " data-events=\"\(viewer.link("runs/\(id)/log/events?\(query)"))\"" : ""
        body += "<pre id=\"\(live ? "live-log" : "log")\"\(events)>\(HTMLText.escape(text))</pre>"
        return WebPage.html(title: "Log of \(run.record.runID)", viewer: viewer, body: body)
    }

    static let pageLogBytes = 4 * 1024 * 1024

    private struct OutputPayload: Decodable {
        var text: String
    }

    /// The text of an `output` event (the store keeps it masked, as `pipe runs logs` prints it); other events add
    /// nothing.
    static func outputText(_ event: StoredEvent) -> String {
        guard event.type == "output",
            let payload = try? JSONDecoder().decode(OutputPayload.self, from: Data(event.payload.utf8))
        else { return "" }
        return payload.text
    }
}
