/// A wide-area link as the relay models it: a round trip split evenly between the two directions and a rate each
/// direction paces its bytes at.
public struct LinkProfile: Sendable, Equatable, CustomStringConvertible {
    public let roundTripSeconds: Double
    public let bitsPerSecond: Double

    public init(roundTripSeconds: Double, bitsPerSecond: Double) throws {
        guard roundTripSeconds >= 0, roundTripSeconds < 10 else {
            throw LinkFailure("a round trip of \(roundTripSeconds) s is outside 0–10 s")
        }
        guard bitsPerSecond >= 1e5, bitsPerSecond <= 1e11 else {
            throw LinkFailure("a rate of \(bitsPerSecond) bit/s is outside 100 kbit/s – 100 Gbit/s")
        }
        self.roundTripSeconds = roundTripSeconds
        self.bitsPerSecond = bitsPerSecond
    }

    public var oneWaySeconds: Double { roundTripSeconds / 2 }
    public var bytesPerSecond: Double { bitsPerSecond / 8 }

    /// One millisecond of the link's bytes, and at least one full read: a burst that small keeps pacing smooth
    /// without making every read wait.
    public var burstBytes: Double { max(Double(LinkDirection.readBytes), bytesPerSecond / 1000) }

    /// What one direction holds before it stops reading: the bytes in flight over one way, plus a round trip of
    /// the link's bytes as the bottleneck's buffer (a generous router's), and at least 256 KiB.
    public var queueBytes: Int { Int(bytesPerSecond * (oneWaySeconds + roundTripSeconds)) + 256 * 1024 }

    public var description: String {
        let megabits = bitsPerSecond / 1e6
        let rate = megabits >= 1000 ? "\(formatted(megabits / 1000)) Gbit/s" : "\(formatted(megabits)) Mbit/s"
        return "\(formatted(roundTripSeconds * 1000)) ms RTT, \(rate)"
    }

    private func formatted(_ value: Double) -> String {
        value == value.rounded() ? String(Int(value)) : String(value)
    }
}

/// A relay or probe that cannot do its work, and why.
public struct LinkFailure: Error, CustomStringConvertible {
    public let description: String
    public init(_ description: String) { self.description = description }
}
