import Foundation
import PipeBasics

/// A GitHub App: its JWT (RS256 over the app's PEM private key) and the exchange of that JWT for an installation
/// token, which is what statuses, checks and comments are sent with.
public struct GitHubApp: Sendable {
    /// The app's id (or its client id, which GitHub also takes as the issuer).
    public var appID: String
    private let signer: RS256Signer

    public init(appID: String, privateKeyPEM: String) throws {
        guard !appID.isEmpty, appID.unicodeScalars.allSatisfy({ $0.value > 0x20 && $0.value < 0x7F }) else {
            throw ForgeRequestError.badCredential("the GitHub App id is empty or holds spaces or control characters")
        }
        self.appID = appID
        do {
            signer = try RS256Signer(pem: privateKeyPEM)
        } catch let failure as RS256Signer.Failure {
            throw ForgeRequestError.badPrivateKey(failure.description)
        }
    }

    /// GitHub refuses a JWT that expires more than 10 minutes ahead; 9 leaves room for a clock running fast.
    public static let lifetime: TimeInterval = 9 * 60
    /// Issued a minute in the past, as GitHub advises, for a clock running slow.
    public static let backdate: TimeInterval = 60

    /// `header.payload.signature`, base64url without padding, with `iat` 60 s before `now` and `exp` 9 min after.
    public func jwt(at now: Date) throws -> String {
        let seconds = Int(now.timeIntervalSince1970.rounded(.down))
        let issuer: ForgeJSON = Int(appID).map { .integer($0) } ?? .string(appID)
        let header = ForgeJSON.object([("alg", .string("RS256")), ("typ", .string("JWT"))])
        let payload = ForgeJSON.object([
            ("iat", .integer(seconds - Int(GitHubApp.backdate))), ("exp", .integer(seconds + Int(GitHubApp.lifetime))),
            ("iss", issuer),
        ])
        let signingInput = GitHubApp.base64URL(header.encoded) + "." + GitHubApp.base64URL(payload.encoded)
        do {
            return signingInput + "." + GitHubApp.base64URL(try signer.sign(Array(signingInput.utf8)))
        } catch let failure as RS256Signer.Failure {
            throw ForgeRequestError.badPrivateKey(failure.description)
        }
    }

    /// The credential of a request made as the app itself (`GET /app`, the token exchange).
    public func credential(at now: Date) throws -> ForgeCredential {
        try ForgeCredential(.bearer, token: try jwt(at: now))
    }

    /// `POST /app/installations/{id}/access_tokens`, signed as the app; `repositories` narrows the token.
    public func installationTokenRequest(installationID: Int, repositories: [String] = [], at now: Date) throws
        -> ForgeRequest
    {
        let path = try ForgePath.make([
            .fixed("app"), .fixed("installations"), .number("installation id", installationID), .fixed("access_tokens"),
        ])
        let body: ForgeJSON? =
            repositories.isEmpty ? nil : .object([("repositories", .array(repositories.map { .string($0) }))])
        return ForgeRequest(
            method: .post, path: path, headers: ForgeAPI.headers(.github, hasBody: body != nil), body: body
        ).authorized(by: try credential(at: now))
    }

    /// The token and its expiry from the exchange's answer (`201 {token, expires_at}`), or nil.
    public static func installationToken(_ response: ForgeResponse) -> InstallationToken? {
        guard response.status == 201 || response.status == 200, let json = response.json,
            let token = json["token"]?.stringValue, let expiry = json["expires_at"]?.stringValue,
            let expiresAt = parseTimestamp(expiry)
        else { return nil }
        return InstallationToken(token: token, expiresAt: expiresAt)
    }

    static func base64URL(_ bytes: [UInt8]) -> String {
        Data(bytes).base64EncodedString()
            .replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
            .replacingOccurrences(of: "=", with: "")
    }

    static func parseTimestamp(_ text: String) -> Date? {
        let formatter = ISO8601DateFormatter()
        if let date = formatter.date(from: text) { return date }
        formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        return formatter.date(from: text)
    }
}

/// An installation token and when GitHub says it expires (an hour after it was made).
public struct InstallationToken: Sendable, Equatable {
    public var token: String
    public var expiresAt: Date

    public init(token: String, expiresAt: Date) {
        self.token = token
        self.expiresAt = expiresAt
    }
}

/// Installation tokens kept until shortly before they expire, one per installation, shared by the threads of one
/// process; a token within `renewal` of its expiry is fetched again.
public final class InstallationTokenCache: @unchecked Sendable {
    private let clock: any ForgeClock
    private let renewal: TimeInterval
    private let lock = NSLock()
    private var tokens: [Int: InstallationToken] = [:]

    public init(clock: any ForgeClock = SystemForgeClock(), renewal: TimeInterval = 5 * 60) {
        self.clock = clock
        self.renewal = renewal
    }

    /// The cached token for `installationID`, or the one `fetch` gets (then cached). A fetch that throws caches
    /// nothing. Held under the lock, so two threads never exchange the same JWT at once.
    public func token(installationID: Int, fetch: () throws -> InstallationToken) throws -> String {
        lock.lock()
        defer { lock.unlock() }
        if let cached = tokens[installationID], cached.expiresAt.timeIntervalSince(clock.now()) > renewal {
            return cached.token
        }
        let fresh = try fetch()
        tokens[installationID] = fresh
        return fresh.token
    }

    /// Forgets a token the forge refused (401), so the next call fetches a new one.
    public func forget(installationID: Int) {
        lock.lock()
        defer { lock.unlock() }
        tokens[installationID] = nil
    }
}
