import Foundation
import PipeBasics

/// GitLab's signed webhooks (Standard Webhooks): `webhook-signature: v1,<base64 HMAC-SHA256>` over
/// `<webhook-id>.<webhook-timestamp>.<raw body>`, several signatures separated by spaces (any `v1` one may
/// match), and a timestamp within tolerance of now so that an old delivery cannot be sent again later.
struct StandardWebhookSignature {
    let key: [UInt8]
    let toleranceSeconds: Double
    let now: Date

    func verify(_ request: WebhookRequest) throws(WebhookRefusal) {
        guard let id = try request.single("webhook-id"), let timestamp = try request.single("webhook-timestamp"),
            let signatures = try request.single("webhook-signature")
        else {
            throw WebhookRefusal(
                .unauthenticated,
                "webhook-id, webhook-timestamp and webhook-signature are required: this endpoint "
                    + "has a signing token; turn signing on in GitLab's webhook or remove signing-token:")
        }
        guard !id.isEmpty, id.utf8.count <= WebhookLimits.deliveryIDBytes, !id.contains("."),
            id.unicodeScalars.allSatisfy({ $0.value > 0x20 && $0.value < 0x7F })
        else { throw WebhookRefusal(.unauthenticated, "webhook-id is not a delivery id") }
        guard timestamp.utf8.count <= 12, timestamp.allSatisfy({ $0.isASCII && $0.isNumber }),
            let seconds = Double(timestamp)
        else { throw WebhookRefusal(.unauthenticated, "webhook-timestamp is not a number of seconds") }
        let skew = now.timeIntervalSince1970 - seconds
        guard abs(skew) <= toleranceSeconds else {
            throw WebhookRefusal(
                .unauthenticated,
                "webhook-timestamp is \(Int(abs(skew)))s \(skew > 0 ? "old" : "ahead"), beyond "
                    + "the \(Int(toleranceSeconds))s tolerance (a replay, or a clock off; check NTP on both sides)")
        }
        let signed = Array("\(id).\(timestamp).".utf8) + request.body
        let expected = HMACDigest.authenticationCode(.sha256, key: key, message: signed)
        var sawVersion1 = false
        for entry in signatures.split(separator: " ") where entry.hasPrefix("v1,") {
            sawVersion1 = true
            if let code = Data(base64Encoded: String(entry.dropFirst(3))),
                HMACDigest.constantTimeEqual([UInt8](code), expected)
            {
                return
            }
        }
        throw WebhookRefusal(
            .unauthenticated,
            sawVersion1
                ? "webhook-signature does not match under this endpoint's signing token (forged, altered, or "
                    + "signed with another token)"
                : "webhook-signature holds no v1,<base64> signature")
    }
}
