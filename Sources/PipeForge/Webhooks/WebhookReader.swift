/// Reads a verified delivery into a `WebhookDelivery`: the event and delivery id from the forge's headers, then
/// the payload, bounded and checked (commit ids are hex of the right length, refs valid git ref names).
///
/// ```swift
/// let verified = try verifier.verify(request)        // WebhookRefusal → 401 / 400 / 413
/// let delivery = try WebhookReader.read(verified)    // WebhookRefusal → 400
/// ```
public enum WebhookReader {
    public static func read(_ verified: VerifiedWebhook) throws(WebhookRefusal) -> WebhookDelivery {
        let request = verified.request
        let headers = Headers.of(verified.kind)
        guard let event = try firstValue(headers.event, in: request) else {
            throw WebhookRefusal(
                .malformed,
                "no \(headers.event.joined(separator: " or ")) header: not a \(verified.kind.rawValue) delivery")
        }
        let eventName = try PayloadChecks.name(event, headers.event[0])
        let deliveryID = try firstValue(headers.delivery, in: request).map { id throws(WebhookRefusal) in
            try checkDeliveryID(id, headers.delivery[0])
        }
        let content: WebhookEvent
        switch verified.kind {
        case .github: content = try HubPayloadReader(forge: .github, body: request.body).read(event: eventName)
        case .gitea: content = try HubPayloadReader(forge: .gitea, body: request.body).read(event: eventName)
        case .gitlab: content = try GitLabPayloadReader(body: request.body).read(event: eventName)
        }
        return WebhookDelivery(
            forge: verified.kind, eventName: eventName, deliveryID: deliveryID, bodyDigest: verified.bodyDigest,
            event: content)
    }

    /// The headers each forge names its event and delivery by, preferred first.
    struct Headers {
        var event: [String]
        var delivery: [String]

        static func of(_ kind: ForgeKind) -> Headers {
            switch kind {
            case .github: Headers(event: ["X-GitHub-Event"], delivery: ["X-GitHub-Delivery"])
            case .gitea:
                Headers(
                    event: ["X-Forgejo-Event", "X-Gitea-Event"], delivery: ["X-Forgejo-Delivery", "X-Gitea-Delivery"])
            case .gitlab:
                Headers(event: ["X-Gitlab-Event"], delivery: ["Idempotency-Key", "webhook-id", "X-Gitlab-Event-UUID"])
            }
        }
    }

    private static func firstValue(_ names: [String], in request: WebhookRequest) throws(WebhookRefusal) -> String? {
        for name in names {
            if let value = try request.single(name) { return value }
        }
        return nil
    }

    private static func checkDeliveryID(_ id: String, _ header: String) throws(WebhookRefusal) -> String {
        guard !id.isEmpty, id.utf8.count <= WebhookLimits.deliveryIDBytes,
            id.unicodeScalars.allSatisfy({ $0.value > 0x20 && $0.value < 0x7F })
        else {
            throw WebhookRefusal(
                .malformed, "\(header) is not a delivery id (1 to \(WebhookLimits.deliveryIDBytes) printable ASCII)")
        }
        return id
    }
}
