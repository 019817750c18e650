import Foundation
import PipeChatOps
import PipeCore
import PipeHTTP

#if canImport(Glibc)
    import Glibc
#endif

/// The web page's settings: the `web:` section of `web.yml` (`pipe web serve`) or of the controller config
/// (docs/web.md).
public struct WebConfig: Sendable, Equatable {
    /// Who may read pages and inline screenshots.
    public enum ReadAccess: String, Sendable, Equatable {
        /// Anyone who can reach the page.
        case anyone
        /// Only a signed-in user (or one the proxy names).
        case signedIn = "signed-in"
    }

    /// Identity from a reverse proxy: the header naming the user, believed only as `ProxyHeaderTrust` allows.
    public struct Proxy: Sendable, Equatable {
        public var userHeader: String
        public var secretHeader: String?
        public var secret: SecretSource?

        public init(userHeader: String = "X-Forwarded-User", secretHeader: String? = nil, secret: SecretSource? = nil) {
            self.userHeader = userHeader
            self.secretHeader = secretHeader
            self.secret = secret
        }
    }

    /// Where `pipe web serve` listens (the controller's `http:` section says it there).
    public var listener: HTTPListener
    /// Where the pages are mounted: `/` or a prefix such as `/pipe/`.
    public var path: String
    public var read: ReadAccess
    /// The users file of the page's own sign-in, relative to the config's folder; `nil`: no own sign-in.
    public var usersFile: String?
    public var proxy: Proxy?
    /// Cookies without `Secure`, for tests over plain HTTP on loopback only.
    public var plainHTTP: Bool
    public var sessionSeconds: Double
    /// Sign-in attempts per minute, per user and per address.
    public var signInsPerMinute: Int
    /// `pipeline/layer` patterns (shell globs) each user may sign off.
    public var signoff: [String: [String]]

    public init(
        listener: HTTPListener = .tcp(address: "127.0.0.1", port: 8090), path: String = "/",
        read: ReadAccess = .signedIn, usersFile: String? = nil, proxy: Proxy? = nil, plainHTTP: Bool = false,
        sessionSeconds: Double = 12 * 3600, signInsPerMinute: Int = 10, signoff: [String: [String]] = [:]
    ) {
        self.listener = listener
        self.path = path
        self.read = read
        self.usersFile = usersFile
        self.proxy = proxy
        self.plainHTTP = plainHTTP
        self.sessionSeconds = sessionSeconds
        self.signInsPerMinute = signInsPerMinute
        self.signoff = signoff
    }

    /// Whether `user` may sign off `layer` of `pipeline`.
    public func maySignoff(user: String, pipeline: String, layer: String) -> Bool {
        (signoff[user] ?? []).contains { fnmatch($0, "\(pipeline)/\(layer)", 0) == 0 }
    }
}
