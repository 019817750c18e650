/// What authorizes a request, as each forge spells it: GitHub `Authorization: Bearer <token>` (a personal token,
/// an installation token, or the app's JWT), Gitea/Forgejo `Authorization: token <token>`, GitLab `PRIVATE-TOKEN`
/// (personal, project or group access tokens) or `Authorization: Bearer` (OAuth tokens).
public struct ForgeCredential: Sendable, Equatable {
    public enum Scheme: String, Sendable, Equatable {
        case bearer
        case giteaToken = "gitea-token"
        case gitlabPrivateToken = "gitlab-private-token"
    }

    public let scheme: Scheme
    private let secret: String

    /// Refuses a token that is empty or holds what would end or split the header (a line break, a control
    /// character, a space): it came from a file or the environment, and a trailing newline is trimmed first.
    public init(_ scheme: Scheme, token: String) throws {
        var token = token
        while token.hasSuffix("\n") || token.hasSuffix("\r") { token.removeLast() }
        guard !token.isEmpty else { throw ForgeRequestError.badCredential("the token is empty") }
        guard token.unicodeScalars.allSatisfy({ $0.value > 0x20 && $0.value < 0x7F }) else {
            throw ForgeRequestError.badCredential(
                "the token holds a space, a line break, a control or a non-ASCII character")
        }
        self.scheme = scheme
        self.secret = token
    }

    /// The credential a forge takes a plain API token as.
    public static func token(_ token: String, for forge: ForgeKind) throws -> ForgeCredential {
        switch forge {
        case .github: return try ForgeCredential(.bearer, token: token)
        case .gitea: return try ForgeCredential(.giteaToken, token: token)
        case .gitlab: return try ForgeCredential(.gitlabPrivateToken, token: token)
        }
    }

    /// The header that carries it.
    public var header: (String, String) {
        switch scheme {
        case .bearer: return ("Authorization", "Bearer " + secret)
        case .giteaToken: return ("Authorization", "token " + secret)
        case .gitlabPrivateToken: return ("PRIVATE-TOKEN", secret)
        }
    }

    public static func == (lhs: ForgeCredential, rhs: ForgeCredential) -> Bool {
        lhs.scheme == rhs.scheme && lhs.secret == rhs.secret
    }
}

extension ForgeCredential: CustomStringConvertible {
    /// Never the token itself.
    public var description: String { "ForgeCredential(\(scheme.rawValue), redacted)" }
}
