import Foundation

/// Turns wall-clock times of a time zone into instants, telling apart the times that do not exist (the hour
/// skipped when clocks go forward) and the ones that exist twice (the hour repeated when they go back).
///
/// Times are seconds since 1970: an instant in UTC, a wall time as if the local clock's reading were UTC.
struct ZoneOffsets {
    let zone: TimeZone

    init(_ zone: TimeZone) { self.zone = zone }

    enum Resolution: Equatable {
        case unique(Double)
        /// The wall time came twice: the instants of its first and second occurrence.
        case repeated(Double, Double)
        /// The wall time never came: the instant the clocks jumped over it.
        case skipped(transition: Double)
    }

    /// The zone's offset from UTC, in seconds, at an instant.
    func offset(at instant: Double) -> Int {
        zone.secondsFromGMT(for: Date(timeIntervalSince1970: instant))
    }

    func resolve(wall: Double) -> Resolution {
        // The offsets in force a day and a half around cover any change near this wall time: zones change their
        // offset at most a few times a year.
        let candidates = Set([offset(at: wall - 129_600), offset(at: wall), offset(at: wall + 129_600)])
        let instants = candidates.map { wall - Double($0) }.filter { offset(at: $0) == Int(wall - $0) }.sorted()
        switch instants.count {
        case 0:
            let bounds = candidates.map { wall - Double($0) }
            return .skipped(transition: transition(from: bounds.min() ?? wall, to: bounds.max() ?? wall))
        case 1: return .unique(instants[0])
        default: return .repeated(instants[0], instants[instants.count - 1])
        }
    }

    /// The first instant in `(low, high]` whose offset differs from the offset at `low` (a binary search to the
    /// second: zone changes happen on whole seconds).
    private func transition(from low: Double, to high: Double) -> Double {
        let before = offset(at: low)
        var low = low
        var high = high
        while high - low > 1 {
            let middle = ((low + high) / 2).rounded(.down)
            if offset(at: middle) == before { low = middle } else { high = middle }
        }
        return high
    }
}
