import Foundation
import PipeBasics
import PipeChatOps
import PipeCore
import PipeHTTP

/// The web page as one endpoint mounted on a PipeHTTP server at its config's path: runs, a run, its log, a
/// checklist and its sign-off, flaky tests, a test's history and the hosts, each with a JSON twin
/// (`?format=json`); the page's own sign-in; downloads of artifacts. Thread-safe.
public final class WebEndpoint: HTTPHandler, @unchecked Sendable {
    public let config: WebConfig
    let store: RunStore
    let backend: WebBackend
    let usersFile: URL?
    let sessions: WebSessions
    /// The runs list's shared live feeds.
    public let runsFeeds: RunsFeeds
    let trust: ProxyHeaderTrust?
    let extras: WebRunExtras
    let userLimiter: RateLimiter
    let addressLimiter: RateLimiter
    let log: @Sendable (String) -> Void

    /// - Parameters:
    ///   - usersFile: the users of the page's own sign-in (read at each sign-in, so `pipe web users` needs no
    ///     restart); `nil`: none.
    ///   - proxySecret: the value of the proxy's shared secret header, read from where the config says.
    ///   - previous: the endpoint this one replaces (a reloaded config): its sessions, sign-in limits and live
    ///     feeds are kept, so nobody is signed out.
    public init(
        config: WebConfig, store: RunStore, backend: WebBackend, usersFile: URL?, proxySecret: String?,
        extras: WebRunExtras = WebRunExtras(), replacing previous: WebEndpoint? = nil,
        log: @escaping @Sendable (String) -> Void
    ) {
        self.config = config
        self.store = store
        self.backend = backend
        self.usersFile = usersFile
        if let previous {
            previous.sessions.lifetime = config.sessionSeconds
            self.sessions = previous.sessions
            self.runsFeeds = previous.runsFeeds
        } else {
            self.sessions = WebSessions(lifetime: config.sessionSeconds)
            self.runsFeeds = RunsFeeds()
        }
        self.trust = config.proxy.map {
            ProxyHeaderTrust(secretHeader: $0.secretHeader, secret: proxySecret)
        }
        self.extras = extras
        if let previous, previous.config.signInsPerMinute == config.signInsPerMinute {
            self.userLimiter = previous.userLimiter
            self.addressLimiter = previous.addressLimiter
        } else {
            self.userLimiter = RateLimiter(perMinute: config.signInsPerMinute)
            self.addressLimiter = RateLimiter(perMinute: config.signInsPerMinute)
        }
        self.log = log
    }

    /// The endpoint to mount: every path under the config's, GET and POST, with room for long-lived streams.
    public var endpoint: HTTPEndpoint {
        HTTPEndpoint(
            "web page", path: config.path == "/" ? .prefix("/") : .prefix(config.path),
            methods: ["GET", "HEAD", "POST"],
            limits: HTTPEndpointLimits(maxBodyBytes: 64 * 1024, requestSeconds: 10, answerSeconds: 5, stallSeconds: 30),
            handler: self)
    }

    public func refused(_ head: HTTPRequestHead?, remoteAddress: String, status: Int?, reason: String) {
        log("web: refused a request from \(remoteAddress): \(reason)")
    }

    public func respond(to request: HTTPRequest) -> HTTPResponse {
        var web = read(request.head)
        // Every visitor without a session gets a pre-session cookie, so the sign-in form has a CSRF token to carry.
        var preSession: String?
        if web.sessionToken == nil, web.cookies[WebRequest.preSessionCookie] == nil, request.head.method != "POST" {
            preSession = Hex.encode(WebSessions.randomBytes(32))
            web.cookies[WebRequest.preSessionCookie] = preSession
        }
        let viewer = WebViewer(base: config.path, user: web.user, csrf: web.csrfCookie.map(sessions.csrfToken) ?? "")
        var response: HTTPResponse
        do {
            response = try route(web, body: request.body, viewer: viewer)
        } catch {
            log("web: \(request.head.method) \(request.head.path): \(error)")
            response = WebPage.message(
                500, title: "Could not answer", "the page could not be made: \(error)", viewer: viewer,
                json: web.wantsJSON)
        }
        if let preSession {
            try? response.headers.add(
                "Set-Cookie",
                WebRequest.setCookie(
                    WebRequest.preSessionCookie, preSession, path: config.path, maxAge: 86400,
                    secure: !config.plainHTTP))
        }
        return response
    }

    func read(_ head: HTTPRequestHead) -> WebRequest {
        let relative = head.path.hasPrefix(config.path) ? String(head.path.dropFirst(config.path.count)) : ""
        let cookies = WebRequest.cookies(head.header("cookie"))
        var user: String?
        var token: String?
        if let session = sessions.session(cookies[WebRequest.sessionCookie]) {
            user = session.user
            token = cookies[WebRequest.sessionCookie]
        } else if let proxy = config.proxy, let trust,
            let named = trust.proxyHeader(proxy.userHeader, in: head)?.trimmingCharacters(in: .whitespaces),
            WebUsersFile.isValidName(named)
        {
            user = named
        }
        let accept = head.header("accept") ?? ""
        return WebRequest(
            head: head, path: relative, segments: relative.split(separator: "/").map(String.init), cookies: cookies,
            user: user, sessionToken: token, address: trust?.clientAddress(head) ?? head.remoteAddress,
            wantsJSON: head.query["format"] == "json"
                || (accept.hasPrefix("application/json") && !accept.contains("text/html")))
    }

    func route(_ web: WebRequest, body: [UInt8], viewer: WebViewer) throws -> HTTPResponse {
        let segments = web.segments
        if segments.first == "static", segments.count == 2 { return asset(segments[1]) }
        if web.head.method == "POST" {
            let form: [String: String]
            do {
                form = try FormDecoder.dictionary(body)
            } catch {
                return WebPage.message(400, title: "Bad form", error.description, viewer: viewer, json: web.wantsJSON)
            }
            guard sessions.checkCSRF(form["csrf"], cookie: web.csrfCookie) else {
                log("web: refused a form without its CSRF token from \(web.address) to \(web.path)")
                return WebPage.message(
                    403, title: "Refused",
                    "this form was sent without its CSRF token (or from another site); reload the page and send it "
                        + "again", viewer: viewer, json: web.wantsJSON)
            }
            return try post(web, form: form, viewer: viewer)
        }
        if segments == ["sign-in"] {
            return WebPage.html(
                title: "Sign in", viewer: viewer,
                body: SignInPage.body(viewer: viewer, next: web.head.query["next"] ?? ""))
        }
        if config.read == .signedIn, web.user == nil {
            if web.wantsJSON {
                return WebPage.json(["error": "sign in first: this page needs a signed-in user"], status: 401)
            }
            return WebPage.redirect(viewer.base + "sign-in?next=" + HTMLText.urlComponent(web.head.path))
        }
        switch segments.first {
        case nil: return WebPage.redirect(viewer.base + "runs")
        case "runs": return try runs(web, viewer: viewer)
        case "flaky":
            let twin = HistoryPages.flakyTwin(try store.flakyTests(pipeline: web.head.query["pipeline"], since: nil))
            if web.wantsJSON { return WebPage.json(twin) }
            return WebPage.html(title: "Flaky tests", viewer: viewer, body: HistoryPages.flaky(twin, viewer: viewer))
        case "tests":
            let identifier = web.head.query["id"] ?? ""
            let twin = HistoryPages.historyTwin(
                try store.testHistory(identifier: identifier, pipeline: web.head.query["pipeline"], limit: 100))
            if web.wantsJSON { return WebPage.json(twin) }
            return WebPage.html(
                title: identifier, viewer: viewer, body: HistoryPages.history(identifier, twin, viewer: viewer))
        case "hosts":
            let twin = HistoryPages.hostsTwin(try backend.hosts())
            if web.wantsJSON { return WebPage.json(twin) }
            return WebPage.html(title: "Hosts", viewer: viewer, body: HistoryPages.hosts(twin))
        default:
            return WebPage.message(404, title: "Not found", "nothing is here", viewer: viewer, json: web.wantsJSON)
        }
    }

    func asset(_ name: String) -> HTTPResponse {
        let (type, text): (String, String)
        switch name {
        case "pipe.css": (type, text) = ("text/css; charset=utf-8", WebAssets.stylesheet)
        case "live.js": (type, text) = ("text/javascript; charset=utf-8", WebAssets.script)
        default: return .text(404, "no such file")
        }
        var response = HTTPResponse(status: 200, contentType: type, body: Array(text.utf8))
        response.headers = WebPage.pageHeaders
        try? response.headers.set("Cache-Control", "public, max-age=300")
        return response
    }

    /// The latest runs that pass the filter, as rows.
    func rows(_ filter: WebRunsFilter) throws -> [WebRunRow] {
        var rows: [WebRunRow] = []
        for summary in try store.listRuns(filter.storeFilter) {
            guard let run = try store.run(summary.runID) else { continue }
            let row = WebRunRow(run)
            if filter.matches(row) { rows.append(row) }
            if rows.count == WebRunsFilter.shown { break }
        }
        return rows
    }
}
