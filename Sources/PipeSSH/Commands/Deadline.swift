import Dispatch

/// A moment on the monotonic clock after which a wait gives up; `nil` seconds means never.
struct Deadline {
    private let endNanoseconds: UInt64?

    init(secondsFromNow seconds: Double?) {
        if let seconds {
            let now = DispatchTime.now().uptimeNanoseconds
            endNanoseconds = now + UInt64(max(0, seconds) * 1_000_000_000)
        } else {
            endNanoseconds = nil
        }
    }

    static let never = Deadline(secondsFromNow: nil)

    var hasPassed: Bool {
        guard let endNanoseconds else { return false }
        return DispatchTime.now().uptimeNanoseconds >= endNanoseconds
    }

    /// Seconds left, at most `cap`, never negative.
    func remaining(cappedAt cap: Double) -> Double {
        guard let endNanoseconds else { return cap }
        let now = DispatchTime.now().uptimeNanoseconds
        guard endNanoseconds > now else { return 0 }
        return min(cap, Double(endNanoseconds - now) / 1_000_000_000)
    }

    /// The earlier of two deadlines.
    func earlier(_ other: Deadline) -> Deadline {
        switch (endNanoseconds, other.endNanoseconds) {
        case (nil, _): return other
        case (_, nil): return self
        case (let mine?, let theirs?): return mine <= theirs ? self : other
        }
    }
}

/// Seconds on the monotonic clock, for measuring durations.
enum MonotonicClock {
    static func seconds() -> Double {
        Double(DispatchTime.now().uptimeNanoseconds) / 1_000_000_000
    }
}
