import Foundation
import PipeHTTP

/// One request as the page sees it: the path under the mount, the cookies, who is asking, and whether a JSON twin
/// is wanted.
struct WebRequest {
    var head: HTTPRequestHead
    /// The path below the mount, without a leading `/` (`runs/20261203-0700-ab12`).
    var path: String
    var segments: [String]
    var cookies: [String: String]
    /// The user: a signed-in session's, or the one the believed proxy names.
    var user: String?
    /// The session token, when signed in through the page.
    var sessionToken: String?
    /// Where the request is from (the proxy's forwarded address when believed).
    var address: String
    var wantsJSON: Bool

    static let sessionCookie = "pipe_session"
    static let preSessionCookie = "pipe_pre"

    /// The value the CSRF token of this request's forms is bound to.
    var csrfCookie: String? { sessionToken ?? cookies[Self.preSessionCookie] }

    /// `Cookie: a=1; b=2`; a name given twice keeps its first value.
    static func cookies(_ header: String?) -> [String: String] {
        var result: [String: String] = [:]
        for part in (header ?? "").split(separator: ";") {
            let pair = part.split(separator: "=", maxSplits: 1).map { $0.trimmingCharacters(in: .whitespaces) }
            guard pair.count == 2, !pair[0].isEmpty, result[pair[0]] == nil else { continue }
            result[pair[0]] = pair[1]
        }
        return result
    }

    /// A `Set-Cookie` value: HttpOnly, SameSite=Lax (a link from a pull request's status keeps the session; posts
    /// need the CSRF token anyway), limited to the mount, Secure unless the page is served over plain HTTP.
    static func setCookie(_ name: String, _ value: String, path: String, maxAge: Int, secure: Bool) -> String {
        "\(name)=\(value); Path=\(path); Max-Age=\(maxAge); HttpOnly; SameSite=Lax" + (secure ? "; Secure" : "")
    }

    /// Where to go after signing in: only a path under the mount, never another site (`//evil.example`).
    static func safeNext(_ next: String?, base: String) -> String {
        guard let next, next.hasPrefix(base), !next.hasPrefix("//"), !next.contains("\\"),
            !next.utf8.contains(where: { $0 < 0x20 || $0 == 0x7F })
        else { return base + "runs" }
        return next
    }
}
