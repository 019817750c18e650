import Foundation

/// A webhook delivery whose signature was verified, as the store remembers it to recognise a replay.
public struct ForgeDelivery: Sendable, Equatable {
    /// The forge's name in `forges.yml`.
    public var forge: String
    /// The forge's delivery id header (not signed, so not enough on its own to recognise a replay).
    public var deliveryID: String?
    /// SHA-256 (hex) of the signed body: a body seen before is a replay, whatever id it carries.
    public var bodyDigest: String
    /// The event name (`pull_request`, `Merge Request Hook`).
    public var event: String
    /// What requests of this kind are counted under (`rerequest:<forge>:<check run>`), when they are rate-limited.
    public var rateKey: String?
    public var receivedAt: Date

    public init(
        forge: String, deliveryID: String?, bodyDigest: String, event: String, rateKey: String? = nil,
        receivedAt: Date
    ) {
        self.forge = forge
        self.deliveryID = deliveryID
        self.bodyDigest = bodyDigest
        self.event = event
        self.rateKey = rateKey
        self.receivedAt = receivedAt
    }
}

/// Whether a delivery is new.
public enum ForgeDeliveryRecording: Sendable, Equatable {
    case new
    /// The same body, or the same delivery id, came before: answered, and not acted on again.
    case seenBefore(firstAt: Date, deliveryID: String?)
}
