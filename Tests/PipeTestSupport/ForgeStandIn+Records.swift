import Foundation

/// One request the stand-in's forge APIs received, with its verdict.
public struct RecordedForgeRequest: Decodable, Sendable, CustomStringConvertible {
    public var seq: Int
    public var forge: String
    public var method: String
    public var path: String
    public var query: String
    /// The contract's operation id (`repos/create-commit-status`, `repoCreateStatus`, `set_commit_status`), nil
    /// when no operation has that method and path.
    public var operation: String?
    /// False when a real forge would have refused it; `problems` says why.
    public var valid: Bool
    public var problems: [String]
    /// The scripted fault that answered it instead of the API.
    public var fault: String?
    public var status: Int?
    /// Header names as sent; credentials cut to their scheme.
    public var headers: [String: String]
    public var body: String
    public var identity: String?

    public func header(_ name: String) -> String? {
        headers.first { $0.key.caseInsensitiveCompare(name) == .orderedSame }?.value
    }

    public var description: String {
        "#\(seq) \(method) \(path) → \(status.map(String.init) ?? "-")"
            + (valid ? "" : " INVALID: \(problems.joined(separator: "; "))") + (fault.map { " (fault \($0))" } ?? "")
    }
}

struct RecordedForgeRequests: Decodable { var requests: [RecordedForgeRequest] }

/// A scripted fault: the next `count` requests (of `method`, whose path matches the regular expression `path`)
/// answer this way.
public struct ForgeStandInFault: Sendable {
    public enum Kind: String, Sendable {
        /// GitHub's 403 "secondary rate limit" with `Retry-After`.
        case secondaryRateLimit = "secondary-rate-limit"
        case tooManyRequests = "429"
        case badGateway = "502"
        case serverError = "500"
        case unauthorized = "401"
        /// No answer for `seconds`, then the connection closes.
        case hang
    }

    public var kind: Kind
    public var count: Int
    public var path: String?
    public var method: String?
    public var forge: ForgeStandIn.Forge?
    public var retryAfter: Int?
    public var seconds: Double?

    public init(
        _ kind: Kind, count: Int = 1, path: String? = nil, method: String? = nil, forge: ForgeStandIn.Forge? = nil,
        retryAfter: Int? = nil, seconds: Double? = nil
    ) {
        self.kind = kind
        self.count = count
        self.path = path
        self.method = method
        self.forge = forge
        self.retryAfter = retryAfter
        self.seconds = seconds
    }

    var json: [String: Any] {
        var body: [String: Any] = ["kind": kind.rawValue, "count": count]
        if let path { body["path"] = path }
        if let method { body["method"] = method }
        if let forge { body["forge"] = forge.rawValue }
        if let retryAfter { body["retry_after"] = retryAfter }
        if let seconds { body["seconds"] = seconds }
        return body
    }
}

/// A webhook delivery: a payload from `Tests/ForgeContract/<forge>/webhooks` (or a body of the test's own), to
/// `url`, signed with `secret` as `signature` says.
public struct ForgeStandInDelivery: Sendable {
    public enum Signature: String, Sendable {
        /// Signed with the secret.
        case correct
        /// Signed with another secret (GitLab: another token).
        case incorrect
        /// Signed correctly, then one byte added to the body.
        case tampered
        /// No signature (Gitea: the headers with empty digests, as Gitea sends them without a secret).
        case none
    }

    /// `github`, `gitea`, `forgejo` or `gitlab`.
    public var forge: String
    public var payload: String?
    public var body: String?
    public var url: URL
    public var secret: String
    public var signature: Signature
    public var event: String?
    public var deliveryID: String?
    /// GitLab's Standard Webhooks signing token (`whsec_…`) and timestamp.
    public var signingToken: String?
    public var timestamp: Int?

    public init(
        forge: String, payload: String? = nil, body: String? = nil, url: URL, secret: String,
        signature: Signature = .correct, event: String? = nil, deliveryID: String? = nil,
        signingToken: String? = nil, timestamp: Int? = nil
    ) {
        self.forge = forge
        self.payload = payload
        self.body = body
        self.url = url
        self.secret = secret
        self.signature = signature
        self.event = event
        self.deliveryID = deliveryID
        self.signingToken = signingToken
        self.timestamp = timestamp
    }

    var json: [String: Any] {
        var json: [String: Any] = [
            "forge": forge, "url": url.absoluteString, "secret": secret, "signature": signature.rawValue,
        ]
        if let payload { json["payload"] = payload }
        if let body { json["body"] = body }
        if let event { json["event"] = event }
        if let deliveryID { json["delivery_id"] = deliveryID }
        if let signingToken { json["signing_token"] = signingToken }
        if let timestamp { json["timestamp"] = timestamp }
        return json
    }
}

/// What a delivery sent and what the receiver answered (status 0: it could not be reached).
public struct ForgeStandInDeliveryResult: Decodable, Sendable {
    public var id: Int
    public var url: String
    public var headers: [String: String]
    public var status: Int
    public var answer: String
}

/// A request the stand-in's own receiver got: headers in the order and spelling they arrived.
public struct ReceivedWebhook: Decodable, Sendable {
    public var method: String
    public var path: String
    public var headers: [[String]]
    public var body: String

    public func header(_ name: String) -> String? {
        headers.first { $0.first?.caseInsensitiveCompare(name) == .orderedSame }?.last
    }
}

struct ReceivedWebhooks: Decodable { var received: [ReceivedWebhook] }
