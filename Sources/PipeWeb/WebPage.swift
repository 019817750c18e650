import Foundation
import PipeHTTP

/// Who is looking and how links are made: the part of every page that is not its content.
public struct WebViewer: Sendable, Equatable {
    /// Where the pages are mounted, ending in `/` (`/`, `/pipe/`).
    public var base: String
    /// The signed-in user, if any.
    public var user: String?
    /// The CSRF token for the forms on this page.
    public var csrf: String

    public init(base: String, user: String?, csrf: String) {
        self.base = base
        self.user = user
        self.csrf = csrf
    }

    /// A link inside the page: `path` has no leading `/`.
    public func link(_ path: String) -> String { HTMLText.escape(base + path) }

    /// The hidden CSRF field every form carries.
    public var csrfField: String { "<input type=\"hidden\" name=\"csrf\" value=\"\(HTMLText.escape(csrf))\">" }
}

/// The frame of every page and the headers every answer of the page carries.
public enum WebPage {
    /// Scripts, styles and images only from the page itself; no frames, no plugins, forms only to itself.
    public static let contentSecurityPolicy =
        "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self'; connect-src 'self'; "
        + "form-action 'self'; frame-ancestors 'none'; base-uri 'none'"

    /// A whole HTML page.
    public static func html(title: String, viewer: WebViewer, body: String, status: Int = 200) -> HTTPResponse {
        var text = "<!doctype html><html lang=\"en\"><head><meta charset=\"utf-8\">"
        text += "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">"
        text += "<title>\(HTMLText.escape(title)) · Pipe</title>"
        text += "<link rel=\"stylesheet\" href=\"\(viewer.link("static/pipe.css"))\">"
        text += "<script src=\"\(viewer.link("static/live.js"))\" defer></script></head><body><header>"
        text += "<strong>Pipe</strong><nav><a href=\"\(viewer.link("runs"))\">Runs</a> · "
        text +=
            "<a href=\"\(viewer.link("flaky"))\">Flaky tests</a> · <a href=\"\(viewer.link("hosts"))\">Hosts</a></nav>"
        if let user = viewer.user {
            text += "<form method=\"post\" action=\"\(viewer.link("sign-out"))\">\(viewer.csrfField)"
            text += "<span>\(HTMLText.escape(user))</span> <button type=\"submit\">Sign out</button></form>"
        } else {
            text += "<a class=\"sign-in\" href=\"\(viewer.link("sign-in"))\">Sign in</a>"
        }
        text += "</header><main>\(body)</main></body></html>\n"
        var response = HTTPResponse(status: status, contentType: "text/html; charset=utf-8", body: Array(text.utf8))
        response.headers = pageHeaders
        return response
    }

    /// A JSON twin: `value` encoded with sorted keys.
    public static func json<Value: Encodable>(_ value: Value, status: Int = 200) -> HTTPResponse {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes, .prettyPrinted]
        encoder.dateEncodingStrategy = .iso8601
        let data = (try? encoder.encode(value)) ?? Data("{}".utf8)
        var response = HTTPResponse(status: status, contentType: "application/json", body: Array(data) + [0x0A])
        response.headers = pageHeaders
        return response
    }

    /// A plain page of one message (a refusal, a missing run), HTML or JSON as asked.
    public static func message(
        _ status: Int, title: String, _ text: String, viewer: WebViewer, json: Bool
    ) -> HTTPResponse {
        if json { return Self.json(["error": text], status: status) }
        return html(
            title: title, viewer: viewer,
            body: "<h1>\(HTMLText.escape(title))</h1><p class=\"refusal\">\(HTMLText.escape(text))</p>",
            status: status)
    }

    /// A redirect after a form (303: the browser then asks with GET).
    public static func redirect(_ location: String, cookies: [String] = []) -> HTTPResponse {
        var response = HTTPResponse.text(303, "see \(location)")
        response.headers = pageHeaders
        try? response.headers.set("Location", location)
        for cookie in cookies { try? response.headers.add("Set-Cookie", cookie) }
        return response
    }

    /// What every page says: the policy, no sniffing, no framing, no caching, no referrer to other sites.
    static var pageHeaders: HTTPHeaders {
        (try? HTTPHeaders([
            ("Content-Security-Policy", contentSecurityPolicy), ("X-Content-Type-Options", "nosniff"),
            ("X-Frame-Options", "DENY"), ("Referrer-Policy", "same-origin"), ("Cache-Control", "no-store"),
        ])) ?? HTTPHeaders()
    }

    /// Headers of a download: never shown by the browser, never sniffed, and sandboxed if it is opened anyway.
    static func downloadHeaders(fileName: String) -> HTTPHeaders {
        let safe = String(
            fileName.unicodeScalars.map { scalar -> Character in
                let ok =
                    scalar.isASCII && scalar.value > 0x20 && scalar.value != 0x7F && scalar != "\"" && scalar != "\\"
                    && scalar != ";"
                return ok ? Character(scalar) : "_"
            })
        return
            (try? HTTPHeaders([
                ("Content-Disposition", "attachment; filename=\"\(safe.isEmpty ? "artifact" : safe)\""),
                ("X-Content-Type-Options", "nosniff"), ("Content-Security-Policy", "sandbox"),
                ("Cache-Control", "no-store"),
            ])) ?? HTTPHeaders()
    }

    /// An outcome or verdict as a word with its colour class.
    static func badge(_ text: String) -> String {
        "<span class=\"\(HTMLText.escape(text))\">\(HTMLText.escape(text))</span>"
    }

    static func duration(_ seconds: Double?) -> String {
        guard let seconds else { return "" }
        if seconds < 60 { return String(format: "%.1f s", seconds) }
        return "\(Int(seconds) / 60) min \(Int(seconds) % 60) s"
    }
}
