import Foundation

/// The order in which a run tries the hosts that match its pipeline: by free capacity, then by recent health.
///
/// A pure function of what the run store says (slot leases held, health checks), so the same facts always give the
/// same order, and the reasons can be shown and recorded. Hosts whose latest health check failed are out of
/// rotation until a check passes again; hosts whose every slot is leased are busy. Neither is ranked: the caller
/// waits for a slot, or fails with `explanation`.
public struct HostPoolChoice: Sendable, Equatable {
    /// What is known of one matching host.
    public struct Candidate: Sendable, Equatable {
        public var host: HostConfig
        /// Slot leases held on it now (by live runs).
        public var leasedSlots: Int
        /// Its health checks, `nil` when it was never checked.
        public var health: HostHealth?

        public init(host: HostConfig, leasedSlots: Int, health: HostHealth?) {
            self.host = host
            self.leasedSlots = leasedSlots
            self.health = health
        }

        var freeSlots: Int { max(0, host.capacity - leasedSlots) }
    }

    /// A host the run may try, with why it is where it is in the order.
    public struct Ranked: Sendable, Equatable {
        public var host: HostConfig
        public var freeSlots: Int
        /// e.g. `2 of 2 slots free; passed its health check at 2026-11-29 14:03:12 UTC (latency 4 ms)`.
        public var reason: String
    }

    /// A matching host the run may not use now.
    public struct Excluded: Sendable, Equatable {
        public enum Why: String, Sendable, Equatable {
            /// Every slot is leased.
            case busy
            /// Its latest health check failed.
            case outOfRotation = "out-of-rotation"
        }

        public var host: HostConfig
        public var why: Why
        public var reason: String
    }

    /// The hosts to try, best first.
    public var ranked: [Ranked]
    /// The others, in the candidates' order.
    public var excluded: [Excluded]

    /// Ranks `candidates` (in their given order, which breaks the last ties: the pipeline's or the hosts file's).
    ///
    /// Order: more free slots first; then hosts whose latest check passed before hosts never checked; then the more
    /// recently checked (a fresher pass says more); then lower latency; then the given order.
    public static func rank(_ candidates: [Candidate]) -> HostPoolChoice {
        var usable: [(offset: Int, candidate: Candidate)] = []
        var excluded: [Excluded] = []
        for (offset, candidate) in candidates.enumerated() {
            if let health = candidate.health, !health.isInRotation {
                excluded.append(Excluded(host: candidate.host, why: .outOfRotation, reason: outOfRotation(health)))
            } else if candidate.freeSlots == 0 {
                excluded.append(
                    Excluded(
                        host: candidate.host, why: .busy,
                        reason: "all \(slots(candidate.host.capacity)) leased by runs in progress"))
            } else {
                usable.append((offset, candidate))
            }
        }
        usable.sort { left, right in
            let (a, b) = (left.candidate, right.candidate)
            if a.freeSlots != b.freeSlots { return a.freeSlots > b.freeSlots }
            let (aChecked, bChecked) = (a.health != nil, b.health != nil)
            if aChecked != bChecked { return aChecked }
            if let aCheck = a.health?.latest, let bCheck = b.health?.latest {
                if aCheck.checkedAt != bCheck.checkedAt { return aCheck.checkedAt > bCheck.checkedAt }
                if let aLatency = aCheck.latencySeconds, let bLatency = bCheck.latencySeconds, aLatency != bLatency {
                    return aLatency < bLatency
                }
            }
            return left.offset < right.offset
        }
        let ranked = usable.map { entry in
            Ranked(host: entry.candidate.host, freeSlots: entry.candidate.freeSlots, reason: reason(entry.candidate))
        }
        return HostPoolChoice(ranked: ranked, excluded: excluded)
    }

    /// Why no host can be used now, naming each host and what to do; `nil` when some host is ranked.
    public var explanation: String? {
        guard ranked.isEmpty else { return nil }
        guard !excluded.isEmpty else { return "no host matches" }
        let lines = excluded.map { "\($0.host.name): \($0.reason)" }
        var advice: [String] = []
        if excluded.contains(where: { $0.why == .busy }) {
            advice.append("wait for a run to end (`pipe runs list --status running`) or raise `capacity`")
        }
        if excluded.contains(where: { $0.why == .outOfRotation }) {
            advice.append("`pipe hosts check` puts a host back in rotation once it passes")
        }
        return "no matching host can take the run now: " + lines.joined(separator: "; ") + ". "
            + advice.joined(separator: "; ")
    }

    private static func reason(_ candidate: Candidate) -> String {
        let free = "\(candidate.freeSlots) of \(slots(candidate.host.capacity)) free"
        guard let health = candidate.health else { return free + "; never health-checked" }
        var text = free + "; passed its health check at \(HostPoolChoice.time(health.latest.checkedAt))"
        if let latency = health.latest.latencySeconds { text += " (latency \(milliseconds(latency)))" }
        return text
    }

    private static func outOfRotation(_ health: HostHealth) -> String {
        let failures = health.consecutiveFailures == 1 ? "" : " (\(health.consecutiveFailures) checks in a row)"
        return "out of rotation: its health check failed at \(time(health.latest.checkedAt))\(failures): "
            + (health.latest.problem ?? "no reason recorded")
    }

    private static func slots(_ count: Int) -> String { count == 1 ? "1 slot" : "\(count) slots" }

    static func milliseconds(_ seconds: Double) -> String {
        seconds < 0.01 ? String(format: "%.1f ms", seconds * 1000) : String(format: "%.0f ms", seconds * 1000)
    }

    /// `2026-11-29 14:03:12 UTC`.
    static func time(_ date: Date) -> String {
        var seconds = time_t(date.timeIntervalSince1970.rounded(.down))
        var parts = tm()
        gmtime_r(&seconds, &parts)
        return String(
            format: "%04d-%02d-%02d %02d:%02d:%02d UTC", Int(parts.tm_year) + 1900, Int(parts.tm_mon) + 1,
            Int(parts.tm_mday), Int(parts.tm_hour), Int(parts.tm_min), Int(parts.tm_sec))
    }
}
