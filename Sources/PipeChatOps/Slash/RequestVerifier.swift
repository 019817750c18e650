import Foundation
import PipeBasics
import PipeHTTP

/// Checks that a request comes from the chat, before anything else is read from it.
///
/// Slack: `X-Slack-Request-Timestamp` within `window` of now, `X-Slack-Signature` equal to `v0=` + hex
/// HMAC-SHA256 of `v0:<timestamp>:<raw body>` under the signing secret (compared in constant time), and a signature
/// whose bytes were not seen before inside the window. Mattermost: the form's `token` (or `Authorization: Token …`;
/// both must agree when both are sent) equal to the configured token, in constant time; Mattermost signs nothing,
/// so it has no timestamp or replay check. Each header is read once: a verification header sent twice is refused.
public struct RequestVerifier: Sendable {
    public let dialect: ChatDialect
    private let secret: [UInt8]
    public let window: TimeInterval
    private let replays: any ReplayGuard

    /// - Parameters:
    ///   - secret: Slack's signing secret, or Mattermost's command token.
    ///   - window: how far a timestamp may be from now (Slack recommends 5 minutes).
    ///   - replays: where seen signatures are kept for twice the window; this process's memory when `nil`.
    public init(dialect: ChatDialect, secret: String, window: TimeInterval = 300, replays: (any ReplayGuard)? = nil) {
        self.dialect = dialect
        self.secret = Array(secret.utf8)
        self.window = window
        self.replays = replays ?? ReplayCache(window: window)
    }

    /// Checks `request`; `form` is its decoded body (Mattermost's token is a form field).
    public func verify(_ request: HTTPRequest, form: [String: String], now: Date = Date()) throws(VerificationFailure) {
        switch dialect {
        case .slack: try verifySlack(request, now: now)
        case .mattermost: try verifyMattermost(request, form: form)
        }
    }

    private func verifySlack(_ request: HTTPRequest, now: Date) throws(VerificationFailure) {
        try Self.refuseRepeated(["X-Slack-Request-Timestamp", "X-Slack-Signature"], in: request.head)
        guard let stamp = request.head.header("x-slack-request-timestamp"),
            let signature = request.head.header("x-slack-signature")
        else {
            throw VerificationFailure(
                status: 401, kind: "unsigned",
                "unsigned request: X-Slack-Request-Timestamp and X-Slack-Signature are required")
        }
        // The timestamp text is signed as sent, so only one spelling of a time is accepted.
        guard let seconds = Self.canonicalSeconds(stamp) else {
            throw VerificationFailure(
                status: 400, kind: "malformed timestamp",
                "X-Slack-Request-Timestamp must be whole seconds in digits only (no sign, spaces or leading zeros)")
        }
        let age = now.timeIntervalSince1970 - Double(seconds)
        guard abs(age) <= window else {
            throw VerificationFailure(
                status: 401, kind: "stale timestamp",
                "stale request: its timestamp is \(Int(abs(age).rounded())) s "
                    + "\(age > 0 ? "old" : "in the future"); requests older than \(Int(window)) s are refused")
        }
        guard signature.hasPrefix("v0="), let given = Self.bytes(hex: signature.dropFirst(3)),
            given.count == Self.signatureBytes
        else {
            throw VerificationFailure(
                status: 401, kind: "bad signature",
                "the request's signature does not match (X-Slack-Signature is v0= and 64 hex digits)")
        }
        let expected = HMACDigest.authenticationCode(
            .sha256, key: secret, message: Array("v0:\(stamp):".utf8) + request.body)
        guard HMACDigest.constantTimeEqual(given, expected) else {
            throw VerificationFailure(status: 401, kind: "bad signature", "the request's signature does not match")
        }
        let fresh: Bool
        do {
            fresh = try replays.claim(given, now: now)
        } catch {
            // Unable to tell a replay from a first use, nothing is let through.
            throw VerificationFailure(
                status: 503, kind: "store unavailable",
                "the request could not be checked against earlier ones (\(error)); try again shortly")
        }
        guard fresh else {
            throw VerificationFailure(
                status: 401, kind: "replay", "replayed request: this signature was already used")
        }
    }

    private func verifyMattermost(_ request: HTTPRequest, form: [String: String]) throws(VerificationFailure) {
        try Self.refuseRepeated(["Authorization"], in: request.head)
        var fromHeader: String?
        if let authorization = request.head.header("authorization") {
            let scheme = authorization.prefix { $0 != " " }
            guard scheme.lowercased() == "token" else {
                throw VerificationFailure(
                    status: 401, kind: "bad token", "the Authorization header must be `Token <the command's token>`")
            }
            fromHeader = String(authorization.dropFirst(scheme.count + 1))
        }
        if let fromHeader, let fromForm = form["token"], !digestsEqual(fromHeader, fromForm) {
            throw VerificationFailure(
                status: 401, kind: "bad token", "the form's token and the Authorization header's token differ")
        }
        guard let token = form["token"] ?? fromHeader, !token.isEmpty else {
            throw VerificationFailure(
                status: 401, kind: "unsigned", "no command token: the request does not come from the chat")
        }
        guard digestsEqual(token, String(decoding: secret, as: UTF8.self)) else {
            throw VerificationFailure(status: 401, kind: "bad token", "the command token does not match")
        }
    }

    /// Compared as digests so the time taken does not depend on the length of what was sent either.
    private func digestsEqual(_ given: String, _ expected: String) -> Bool {
        HMACDigest.constantTimeEqual(
            HMACDigest.authenticationCode(.sha256, key: secret, message: Array(given.utf8)),
            HMACDigest.authenticationCode(.sha256, key: secret, message: Array(expected.utf8)))
    }

    /// A header sent twice can be read two ways; it is refused, never joined or picked from.
    private static func refuseRepeated(_ names: [String], in head: HTTPRequestHead) throws(VerificationFailure) {
        for name in names where head.repeatedHeaders.contains(name.lowercased()) {
            throw VerificationFailure(status: 400, kind: "repeated header", "\(name) is given more than once")
        }
    }

    /// HMAC-SHA256's length.
    static let signatureBytes = 32

    /// Seconds written as Slack writes them: 1 to 12 ASCII digits, no leading zero.
    static func canonicalSeconds(_ text: String) -> Int64? {
        let digits = Array(text.utf8)
        guard (1...12).contains(digits.count), digits.allSatisfy({ (48...57).contains($0) }),
            digits.count == 1 || digits[0] != UInt8(ascii: "0")
        else { return nil }
        return Int64(text)
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
