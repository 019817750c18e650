import Foundation
import PipeBasics
import PipeCore

/// Replays and rates kept in the run store (`RequestLedger`), for a store that several controllers serve: a
/// request let through at one controller is a replay at every other, and a user's rate is one across them all.
public final class SharedRequestGuard: ReplayGuard, RateGuard, @unchecked Sendable {
    private let ledger: RequestLedger
    private let lifetime: TimeInterval
    private let capacity: Double

    /// - Parameters:
    ///   - window: the timestamp window; a signature is kept for twice that, as `ReplayCache` does.
    ///   - perMinute: each user's requests a minute, as `RateLimiter` takes them.
    public init(ledger: RequestLedger, window: TimeInterval, perMinute: Int) {
        self.ledger = ledger
        self.lifetime = 2 * window
        self.capacity = Double(max(1, perMinute))
    }

    public func claim(_ signature: [UInt8], now: Date) throws -> Bool {
        try ledger.claimOnce(
            kind: "chat-signature", key: Hex.encode(signature), until: now.addingTimeInterval(lifetime), now: now)
    }

    public func take(_ user: String, now: Date) throws -> Double? {
        try ledger.takeFromBucket("chat-user:\(user)", capacity: capacity, perSecond: capacity / 60, now: now)
    }
}
