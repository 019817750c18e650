import Foundation

/// What a request endpoint must remember across every process that serves one store, kept in the store: a signed
/// request seen once (the same request arriving at another controller is a replay) and each sender's rate bucket.
public protocol RequestLedger: AnyObject {
    /// Records `key` of `kind` until `expiresAt`; false when an unexpired record of it exists (seen before).
    func claimOnce(kind: String, key: String, until expiresAt: Date, now: Date) throws -> Bool

    /// Takes one request from the bucket `key` (holding up to `capacity`, refilled at `perSecond`): `nil` when it
    /// is allowed, else the seconds until the next one is.
    func takeFromBucket(_ key: String, capacity: Double, perSecond: Double, now: Date) throws -> Double?
}
