/// Paces bytes at a link's rate: a token bucket of `burstBytes` filled at `bytesPerSecond`, on a clock the caller
/// passes in (seconds), so the arithmetic is plain logic and tests give it whatever times they like.
///
/// A chunk larger than what the bucket holds departs once the missing tokens have accrued: over any stretch the
/// link moves at most `burstBytes` more than `bytesPerSecond` allows, and never fewer while it has bytes to move.
public struct TokenBucket: Sendable, Equatable {
    public let bytesPerSecond: Double
    public let burstBytes: Double
    /// Tokens held at `clock`; the bucket starts full.
    public private(set) var tokens: Double
    /// The time up to which tokens are accounted: the last departure, or later arrivals.
    public private(set) var clock: Double

    public init(bytesPerSecond: Double, burstBytes: Double, startingAt start: Double = 0) {
        precondition(bytesPerSecond > 0 && burstBytes > 0, "a link needs a rate and a burst above zero")
        self.bytesPerSecond = bytesPerSecond
        self.burstBytes = burstBytes
        tokens = burstBytes
        clock = start
    }

    /// When a chunk of `bytes` that arrived at `arrival` leaves: at once when the bucket holds enough, else when
    /// the missing tokens have accrued. Chunks depart in the order they arrive.
    public mutating func departure(of bytes: Int, arrivingAt arrival: Double) -> Double {
        let start = max(arrival, clock)
        tokens = min(burstBytes, tokens + (start - clock) * bytesPerSecond)
        clock = start
        let needed = Double(bytes)
        if tokens >= needed {
            tokens -= needed
            return start
        }
        clock = start + (needed - tokens) / bytesPerSecond
        tokens = 0
        return clock
    }
}
