import Foundation
import PipeBasics
import PipeForge

/// Deliveries built as each forge sends them: the event and delivery headers, signed with a test secret.
enum WebhookDeliveries {
    static let secret = Array("webhook-reader-test-secret".utf8)

    static func request(_ forge: ForgeKind, event: String, body: [UInt8], extra: [WebhookRequest.Header] = [])
        -> WebhookRequest
    {
        let hex = Hex.encode(HMACDigest.authenticationCode(.sha256, key: secret, message: body))
        var headers = [WebhookRequest.Header("Content-Type", "application/json")]
        switch forge {
        case .github:
            headers += [
                .init("X-GitHub-Event", event), .init("X-GitHub-Delivery", "72d3162e-cc78-11e3-81ab-4c9367dc0958"),
                .init("X-Hub-Signature-256", "sha256=" + hex),
            ]
        case .gitea:
            headers += [
                .init("X-Gitea-Event", event), .init("X-Gitea-Delivery", "2b1c3a7e-6f9d-4e1b-9b0a-5f7c1d2e3f40"),
                .init("X-Gitea-Signature", hex),
            ]
        case .gitlab:
            headers += [
                .init("X-Gitlab-Event", event), .init("Idempotency-Key", "f5e5f430-f57b-4e6e-9fac-d9128cd7232f"),
                .init("X-Gitlab-Token", String(decoding: secret, as: UTF8.self)),
            ]
        }
        return WebhookRequest(path: "/hooks/\(forge.rawValue)", headers: headers + extra, body: body)
    }

    static func read(_ forge: ForgeKind, event: String, body: [UInt8], extra: [WebhookRequest.Header] = [])
        throws(WebhookRefusal) -> WebhookDelivery
    {
        let verified = try WebhookVerifier(kind: forge, secret: secret).verify(
            request(forge, event: event, body: body, extra: extra))
        return try WebhookReader.read(verified)
    }

    /// A delivery that must be a pull request (merge request) event.
    static func pullRequest(_ forge: ForgeKind, event: String, body: [UInt8], extra: [WebhookRequest.Header] = [])
        throws -> PullRequestEvent
    {
        let delivery = try read(forge, event: event, body: body, extra: extra)
        guard case .pullRequest(let pullRequest) = delivery.event else {
            throw WebhookRefusal(.malformed, "read as \(delivery.event), not a pull request")
        }
        return pullRequest
    }

    /// A contract payload, edited as JSON (for events the pack has no example of).
    static func edited(_ path: String, _ edit: (inout [String: Any]) -> Void) throws -> [UInt8] {
        var object = try jsonObject(JSONSerialization.jsonObject(with: Data(ForgeContractFiles.bytes(path))))
        edit(&object)
        return [UInt8](try JSONSerialization.data(withJSONObject: object))
    }

    private static func jsonObject(_ value: Any) throws -> [String: Any] {
        guard let object = value as? [String: Any] else { throw WebhookRefusal(.malformed, "not an object") }
        return object
    }
}
