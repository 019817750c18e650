import Foundation
import PipeBasics

/// Verifies a delivery before any of its body is read, with the secrets of the forge its path belongs to:
/// - GitHub: `X-Hub-Signature-256: sha256=<hex HMAC-SHA256 of the raw body>`;
/// - Gitea / Forgejo: `X-Gitea-Signature` / `X-Forgejo-Signature`, the same HMAC as bare hex (each one sent must
///   match);
/// - GitLab: `X-Gitlab-Token`, the secret token itself (a shared token, not a signature), and, when a signing
///   token is configured, `webhook-signature` (Standard Webhooks) with its `webhook-timestamp` within tolerance.
///
/// Every comparison is in constant time. Only a verifier makes a `VerifiedWebhook`, which is what
/// `WebhookReader` reads.
public struct WebhookVerifier: Sendable {
    public var kind: ForgeKind
    private let secret: [UInt8]?
    private let signingKey: [UInt8]?
    public var timestampToleranceSeconds: Double
    public var maxBodyBytes: Int
    private let now: @Sendable () -> Date

    /// - Parameters:
    ///   - secret: the webhook secret's value (GitHub, Gitea), or GitLab's secret token; `nil` only on GitLab with
    ///     a signing key.
    ///   - signingKey: GitLab's signing key, from `signingKey(fromToken:)`.
    ///   - now: the clock that `webhook-timestamp` is compared with.
    public init(
        kind: ForgeKind, secret: [UInt8]?, signingKey: [UInt8]? = nil,
        timestampToleranceSeconds: Double = WebhookEndpointConfig.defaultTimestampToleranceSeconds,
        maxBodyBytes: Int = WebhookEndpointConfig.defaultMaxBodyBytes, now: @escaping @Sendable () -> Date = { Date() }
    ) {
        precondition(secret != nil || (kind == .gitlab && signingKey != nil), "a verifier needs a secret")
        precondition(secret?.isEmpty != true && signingKey?.isEmpty != true, "an empty secret verifies nothing")
        self.kind = kind
        self.secret = secret
        self.signingKey = kind == .gitlab ? signingKey : nil
        self.timestampToleranceSeconds = timestampToleranceSeconds
        self.maxBodyBytes = maxBodyBytes
        self.now = now
    }

    /// The HMAC key of a GitLab signing token: the base64 after `whsec_`.
    public static func signingKey(fromToken token: String) throws(WebhookRefusal) -> [UInt8] {
        let encoded = token.hasPrefix("whsec_") ? String(token.dropFirst(6)) : token
        guard let key = Data(base64Encoded: encoded), !key.isEmpty else {
            throw WebhookRefusal(
                .malformed, "the signing token is not whsec_ followed by base64; copy it again from GitLab's webhook")
        }
        return [UInt8](key)
    }

    public func verify(_ request: WebhookRequest) throws(WebhookRefusal) -> VerifiedWebhook {
        guard request.body.count <= maxBodyBytes else {
            throw WebhookRefusal(
                .tooLarge, "the body is \(request.body.count) bytes, more than this endpoint's \(maxBodyBytes)")
        }
        switch kind {
        case .github: try verifyHubSignature(request)
        case .gitea: try verifyGiteaSignature(request)
        case .gitlab: try verifyGitLab(request)
        }
        if let type = try request.single("Content-Type"),
            type.split(separator: ";").first?.trimmingCharacters(in: .whitespaces).lowercased() != "application/json"
        {
            throw WebhookRefusal(
                .malformed, "the body is not JSON; set the webhook's content type to application/json")
        }
        return VerifiedWebhook(kind: kind, request: request)
    }

    private func verifyHubSignature(_ request: WebhookRequest) throws(WebhookRefusal) {
        guard let header = try request.single("X-Hub-Signature-256") else {
            throw WebhookRefusal(
                .unauthenticated,
                "no X-Hub-Signature-256 header; set the webhook's secret on GitHub (Settings → "
                    + "Webhooks → Secret)")
        }
        guard header.hasPrefix("sha256="), let code = Self.hexBytes(header.dropFirst(7)) else {
            throw WebhookRefusal(.unauthenticated, "X-Hub-Signature-256 is not sha256= followed by 64 hex digits")
        }
        try check(code, matches: request.body, header: "X-Hub-Signature-256")
    }

    private func verifyGiteaSignature(_ request: WebhookRequest) throws(WebhookRefusal) {
        var checked = 0
        for name in ["X-Forgejo-Signature", "X-Gitea-Signature"] {
            guard let header = try request.single(name) else { continue }
            guard !header.isEmpty else {
                throw WebhookRefusal(
                    .unauthenticated, "\(name) is empty: the webhook has no secret; set one in its settings")
            }
            guard let code = Self.hexBytes(Substring(header)) else {
                throw WebhookRefusal(.unauthenticated, "\(name) is not 64 hex digits")
            }
            try check(code, matches: request.body, header: name)
            checked += 1
        }
        guard checked > 0 else {
            throw WebhookRefusal(
                .unauthenticated, "no X-Gitea-Signature or X-Forgejo-Signature header; set the webhook's secret")
        }
    }

    private func check(_ code: [UInt8], matches body: [UInt8], header: String) throws(WebhookRefusal) {
        guard let secret else {
            throw WebhookRefusal(.unauthenticated, "this endpoint has no secret to check \(header) with")
        }
        let expected = HMACDigest.authenticationCode(.sha256, key: secret, message: body)
        guard HMACDigest.constantTimeEqual(code, expected) else {
            throw WebhookRefusal(
                .unauthenticated,
                "\(header) does not match the body under this endpoint's secret (forged, altered, "
                    + "or signed with another secret)")
        }
    }

    private func verifyGitLab(_ request: WebhookRequest) throws(WebhookRefusal) {
        if let secret {
            guard let token = try request.single("X-Gitlab-Token") else {
                throw WebhookRefusal(
                    .unauthenticated, "no X-Gitlab-Token header; set the webhook's secret token in GitLab")
            }
            // Digests of both compare in constant time whatever the lengths.
            let sent = HMACDigest.authenticationCode(.sha256, key: secret, message: Array(token.utf8))
            let expected = HMACDigest.authenticationCode(.sha256, key: secret, message: secret)
            guard HMACDigest.constantTimeEqual(sent, expected) else {
                throw WebhookRefusal(.unauthenticated, "X-Gitlab-Token is not this endpoint's secret token")
            }
        }
        if let signingKey {
            try StandardWebhookSignature(key: signingKey, toleranceSeconds: timestampToleranceSeconds, now: now())
                .verify(request)
        }
    }

    /// The bytes of exactly 64 hex digits (either case), `nil` otherwise.
    static func hexBytes(_ text: Substring) -> [UInt8]? {
        let digits = Array(text.utf8)
        guard digits.count == 64 else { return nil }
        var bytes: [UInt8] = []
        bytes.reserveCapacity(32)
        for index in stride(from: 0, to: 64, by: 2) {
            guard let high = nibble(digits[index]), let low = nibble(digits[index + 1]) else { return nil }
            bytes.append(high << 4 | low)
        }
        return bytes
    }

    private static func nibble(_ digit: UInt8) -> UInt8? {
        switch digit {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): digit - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): digit - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): digit - UInt8(ascii: "A") + 10
        default: nil
        }
    }
}

/// A delivery whose signature (or token) matched: the only input `WebhookReader` takes.
public struct VerifiedWebhook: Sendable {
    public let kind: ForgeKind
    public let request: WebhookRequest
    /// SHA-256 of the signed body, as hex: GitHub and Gitea sign no timestamp and their delivery id is not
    /// signed, so a body seen before is a replay whatever id it carries.
    public let bodyDigest: String

    fileprivate init(kind: ForgeKind, request: WebhookRequest) {
        self.kind = kind
        self.request = request
        bodyDigest = SHA256Digest.hex(of: request.body)
    }
}
