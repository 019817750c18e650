import Foundation

/// Where each chat user's request rate is kept: this process (`RateLimiter`), or the run store every controller
/// shares (`SharedRequestGuard`).
public protocol RateGuard: Sendable {
    /// Takes one request from `user`'s bucket; `nil` when allowed, else the seconds until the next is. Throws when
    /// it cannot tell.
    func take(_ user: String, now: Date) throws -> Double?
}

/// Requests per chat user: a bucket of `perMinute` requests that refills evenly, so a user may burst that many and
/// then one every `60 / perMinute` seconds. Thread-safe.
public final class RateLimiter: RateGuard, @unchecked Sendable {
    private struct Bucket {
        var tokens: Double
        var updated: Date
    }

    private let lock = NSLock()
    private var buckets: [String: Bucket] = [:]
    private let capacity: Double
    private let perSecond: Double

    public init(perMinute: Int) {
        capacity = Double(max(1, perMinute))
        perSecond = capacity / 60
    }

    /// Takes one request from `user`'s bucket; `nil` when allowed, else the seconds until the next is.
    public func take(_ user: String, now: Date = Date()) -> Double? {
        lock.lock()
        defer { lock.unlock() }
        if buckets.count > 10_000 { forgetFull(now: now) }
        var bucket = buckets[user] ?? Bucket(tokens: capacity, updated: now)
        bucket.tokens = min(capacity, bucket.tokens + max(0, now.timeIntervalSince(bucket.updated)) * perSecond)
        bucket.updated = now
        defer { buckets[user] = bucket }
        guard bucket.tokens >= 1 else { return (1 - bucket.tokens) / perSecond }
        bucket.tokens -= 1
        return nil
    }

    /// Buckets that have refilled are the same as no bucket.
    private func forgetFull(now: Date) {
        buckets = buckets.filter { _, bucket in
            bucket.tokens + now.timeIntervalSince(bucket.updated) * perSecond < capacity
        }
    }
}
