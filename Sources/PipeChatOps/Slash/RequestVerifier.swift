import Foundation
import PipeBasics

/// Checks that a request comes from the chat, before anything else is read from it.
///
/// Slack: `X-Slack-Request-Timestamp` within `window` of now, `X-Slack-Signature` equal to `v0=` + hex
/// HMAC-SHA256 of `v0:<timestamp>:<raw body>` under the signing secret (compared in constant time), and a signature
/// not seen before inside the window. Mattermost: the form's `token` (or `Authorization: Token …`) equal to the
/// configured token, in constant time; Mattermost signs nothing, so it has no timestamp or replay check.
public struct RequestVerifier: Sendable {
    public let dialect: ChatDialect
    private let secret: [UInt8]
    public let window: TimeInterval
    private let replays: ReplayCache

    /// - Parameters:
    ///   - secret: Slack's signing secret, or Mattermost's command token.
    ///   - window: how far a timestamp may be from now (Slack recommends 5 minutes).
    public init(dialect: ChatDialect, secret: String, window: TimeInterval = 300) {
        self.dialect = dialect
        self.secret = Array(secret.utf8)
        self.window = window
        self.replays = ReplayCache(window: window)
    }

    /// Checks `request`; `form` is its decoded body (Mattermost's token is a form field).
    public func verify(_ request: HTTPRequest, form: [String: String], now: Date = Date()) throws(VerificationFailure) {
        switch dialect {
        case .slack: try verifySlack(request, now: now)
        case .mattermost: try verifyMattermost(request, form: form)
        }
    }

    private func verifySlack(_ request: HTTPRequest, now: Date) throws(VerificationFailure) {
        guard let stamp = request.head.header("x-slack-request-timestamp")?.trimmingCharacters(in: .whitespaces),
            let signature = request.head.header("x-slack-signature")?.trimmingCharacters(in: .whitespaces)
        else {
            throw VerificationFailure(
                status: 401, "unsigned request: X-Slack-Request-Timestamp and X-Slack-Signature are required")
        }
        guard let seconds = Int64(stamp), !stamp.hasPrefix("+") else {
            throw VerificationFailure(status: 400, "X-Slack-Request-Timestamp is not a number of seconds")
        }
        let age = now.timeIntervalSince1970 - Double(seconds)
        guard abs(age) <= window else {
            throw VerificationFailure(
                status: 401,
                "stale request: its timestamp is \(Int(abs(age).rounded())) s "
                    + "\(age > 0 ? "old" : "in the future"); requests older than \(Int(window)) s are refused")
        }
        let expected = HMACDigest.authenticationCode(
            .sha256, key: secret, message: Array("v0:\(stamp):".utf8) + request.body)
        guard signature.hasPrefix("v0="), let given = Self.bytes(hex: signature.dropFirst(3)),
            HMACDigest.constantTimeEqual(given, expected)
        else {
            throw VerificationFailure(status: 401, "the request's signature does not match")
        }
        guard replays.claim(signature, now: now) else {
            throw VerificationFailure(status: 401, "replayed request: this signature was already used")
        }
    }

    private func verifyMattermost(_ request: HTTPRequest, form: [String: String]) throws(VerificationFailure) {
        var token = form["token"]
        if token == nil, let authorization = request.head.header("authorization"), authorization.hasPrefix("Token ") {
            token = String(authorization.dropFirst("Token ".count)).trimmingCharacters(in: .whitespaces)
        }
        guard let token, !token.isEmpty else {
            throw VerificationFailure(status: 401, "no command token: the request does not come from the chat")
        }
        // Compared as digests so the time taken does not depend on the length of what was sent either.
        let given = HMACDigest.authenticationCode(.sha256, key: secret, message: Array(token.utf8))
        let expected = HMACDigest.authenticationCode(.sha256, key: secret, message: secret)
        guard HMACDigest.constantTimeEqual(given, expected) else {
            throw VerificationFailure(status: 401, "the command token does not match")
        }
    }

    /// `v0=` + hex as Slack computes it (tests, the benchmark and `pipe chatops sign`).
    public static func slackSignature(secret: String, timestamp: String, body: [UInt8]) -> String {
        let code = HMACDigest.authenticationCode(
            .sha256, key: Array(secret.utf8), message: Array("v0:\(timestamp):".utf8) + body)
        return "v0=" + code.map { String(format: "%02x", $0) }.joined()
    }

    static func bytes<S: StringProtocol>(hex: S) -> [UInt8]? {
        let digits = Array(hex.utf8)
        guard digits.count % 2 == 0, !digits.isEmpty else { return nil }
        var bytes: [UInt8] = []
        bytes.reserveCapacity(digits.count / 2)
        var index = 0
        while index < digits.count {
            guard let high = nibble(digits[index]), let low = nibble(digits[index + 1]) else { return nil }
            bytes.append(high << 4 | low)
            index += 2
        }
        return bytes
    }

    private static func nibble(_ byte: UInt8) -> UInt8? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): return byte - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): return byte - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): return byte - UInt8(ascii: "A") + 10
        default: return nil
        }
    }
}
