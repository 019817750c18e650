import Foundation
import PipeChatOps
import PipeCore
import PipeHTTP

extension WebEndpoint {
    /// A form, once its CSRF token was checked.
    func post(_ web: WebRequest, form: [String: String], viewer: WebViewer) throws -> HTTPResponse {
        switch web.segments {
        case ["sign-in"]: return signIn(web, form: form, viewer: viewer)
        case ["sign-out"]:
            sessions.end(web.sessionToken)
            return WebPage.redirect(
                viewer.base + "runs",
                cookies: [
                    WebRequest.setCookie(
                        WebRequest.sessionCookie, "", path: config.path, maxAge: 0, secure: !config.plainHTTP)
                ])
        case let path where path.count == 5 && path[0] == "runs" && path[2] == "layers" && path[4] == "signoff":
            return try signoff(web, runID: path[1], layer: path[3], form: form, viewer: viewer)
        default:
            return WebPage.message(
                404, title: "Not found", "no form is taken here", viewer: viewer, json: web.wantsJSON)
        }
    }

    func signIn(_ web: WebRequest, form: [String: String], viewer: WebViewer) -> HTTPResponse {
        let user = (form["user"] ?? "").trimmingCharacters(in: .whitespaces)
        let next = form["next"] ?? ""
        func refuse(_ status: Int, _ problem: String) -> HTTPResponse {
            log("web: sign-in of '\(user.prefix(64))' from \(web.address) refused: \(problem)")
            return WebPage.html(
                title: "Sign in", viewer: viewer,
                body: SignInPage.body(viewer: viewer, problem: problem, user: user, next: next), status: status)
        }
        guard let usersFile else {
            return refuse(403, "this page has no own sign-in: it is reached through its reverse proxy")
        }
        if let wait = addressLimiter.take("address:" + web.address) ?? userLimiter.take("user:" + user) {
            return refuse(429, "too many sign-ins; try again in \(Int(wait.rounded(.up))) s")
        }
        let users: WebUsersFile
        do {
            users = try WebUsersFile.read(usersFile)
        } catch {
            log("web: \(error)")
            return refuse(500, "the users file cannot be read; an admin checks the server's log")
        }
        guard WebUsersFile.isValidName(user), users.verify(user, password: form["password"] ?? "") else {
            return refuse(401, "the user or the password is wrong")
        }
        let token = sessions.start(user: user)
        log("web: \(user) signed in from \(web.address)")
        return WebPage.redirect(
            WebRequest.safeNext(next, base: config.path),
            cookies: [
                WebRequest.setCookie(
                    WebRequest.sessionCookie, token, path: config.path, maxAge: Int(config.sessionSeconds),
                    secure: !config.plainHTTP)
            ])
    }

    func signoff(_ web: WebRequest, runID: String, layer: String, form: [String: String], viewer: WebViewer) throws
        -> HTTPResponse
    {
        guard let user = web.user else {
            return WebPage.message(
                401, title: "Sign in first", "signing off needs a signed-in user", viewer: viewer, json: web.wantsJSON)
        }
        guard let run = try store.run(runID) else {
            return WebPage.message(404, title: "No such run", "no run \(runID)", viewer: viewer, json: web.wantsJSON)
        }
        let result = form["result"] ?? ""
        let checklist = backend.checklist(run: run, layer: layer)
        let declared = checklist.fields + checklist.fieldsOnFail.filter { !checklist.fields.contains($0) }
        var fields: [KeyValuePair] = []
        for name in declared {
            if let value = form["field." + name]?.trimmingCharacters(in: .whitespacesAndNewlines), !value.isEmpty {
                fields.append(KeyValuePair(name, value))
            }
        }
        let note = form["note"]?.trimmingCharacters(in: .whitespacesAndNewlines)
        var entry: [String: Any] = [
            "kind": "signoff", "user": user, "address": web.address, "run": runID, "layer": layer, "result": result,
            "fields": Dictionary(fields.map { ($0.key, $0.value) }, uniquingKeysWith: { first, _ in first }),
        ]
        guard config.maySignoff(user: user, pipeline: run.record.pipeline, layer: layer) else {
            entry["outcome"] = "refused: no right"
            audit(entry)
            let problem =
                "\(user) may not sign off \(run.record.pipeline)/\(layer); an admin adds the pattern to "
                + "web.signoff.\(user)"
            return WebPage.message(403, title: "Refused", problem, viewer: viewer, json: web.wantsJSON)
        }
        let request = WebSignoffRequest(
            runID: runID, layer: layer, result: result, fields: fields, note: note?.isEmpty == true ? nil : note,
            signedBy: user)
        do {
            let receipt = try backend.signoff(request)
            entry["outcome"] = "recorded #\(receipt.signoffID): \(receipt.decision)"
            audit(entry)
            if let problem = receipt.forgeProblem { log("web: run \(runID): \(problem)") }
            if web.wantsJSON {
                return WebPage.json([
                    "signoff": "\(receipt.signoffID)", "decision": receipt.decision, "release": receipt.releaseGate,
                ])
            }
            return WebPage.redirect(
                viewer.base + "runs/\(HTMLText.urlComponent(runID))/layers/\(HTMLText.urlComponent(layer))"
                    + "?signed=\(receipt.signoffID)")
        } catch let refusal as WebSignoffRefusal {
            entry["outcome"] = "refused: " + refusal.description
            audit(entry)
            if web.wantsJSON { return WebPage.json(["refused": refusal.problems], status: 422) }
            return checklistPage(
                run, layerName: layer, web: web, viewer: viewer, refusal: refusal.problems, typed: form, status: 422)
        }
    }

    /// Appends to the store's audit log (source `web`); a store without one gets the line in the server's log.
    func audit(_ entry: [String: Any]) {
        let data = (try? JSONSerialization.data(withJSONObject: entry, options: [.sortedKeys])) ?? Data("{}".utf8)
        let text = String(decoding: data, as: UTF8.self)
        guard let audit = store as? AuditLogStore else {
            log("web: audit: \(text)")
            return
        }
        do {
            try audit.appendAudit(source: "web", entry: text, at: Date())
        } catch {
            log("web: could not write the audit entry \(text): \(error)")
        }
    }
}
