import Foundation

/// How many refusals of unverified requests reach the audit log: per peer, the first `perPeer` of each window are
/// written one by one and the rest are counted, then written as one line when the window ends ("41 requests refused
/// from 10.0.0.9 in the last 1 m: bad signature ×38, stale timestamp ×3"). A budget for all peers together bounds a
/// flood from many addresses, and peers past `maxPeers` share one count. Verified requests never pass through
/// it, so a flood never hides or delays what the chat itself asked. Thread-safe.
public final class RefusalThrottle: @unchecked Sendable {
    private struct Peer {
        var since: Date
        var logged = 0
        var total = 0
        var counted: [String: Int] = [:]
    }

    /// Where peers past `maxPeers` are counted.
    static let otherPeers = "other peers"

    private let lock = NSLock()
    private var peers: [String: Peer] = [:]
    private var budgetSince: Date?
    private var budgetUsed = 0
    public let perPeer: Int
    public let window: TimeInterval
    public let budget: Int
    public let maxPeers: Int

    /// - Parameters:
    ///   - perPeer: refusals written one by one per peer and window (0: only the counts).
    ///   - window: how long a peer's count runs before it is written.
    ///   - budget: refusals written one by one per window over all peers together.
    public init(perPeer: Int, window: TimeInterval, budget: Int = 100, maxPeers: Int = 1000) {
        self.perPeer = perPeer
        self.window = window
        self.budget = budget
        self.maxPeers = maxPeers
    }

    /// Takes one refusal: the entries to write now (the refusal itself while the peer and the budget have room,
    /// and the count of any window that has ended).
    public func admit(_ entry: ChatAuditEntry, now: Date) -> [ChatAuditEntry] {
        lock.lock()
        defer { lock.unlock() }
        var written = endedWindows(now: now)
        if budgetSince.map({ now.timeIntervalSince($0) >= window }) ?? true {
            budgetSince = now
            budgetUsed = 0
        }
        let key = peers[entry.remoteAddress] != nil || peers.count < maxPeers ? entry.remoteAddress : Self.otherPeers
        var peer = peers[key] ?? Peer(since: now)
        peer.total += 1
        if key != Self.otherPeers, peer.logged < perPeer, budgetUsed < budget {
            peer.logged += 1
            budgetUsed += 1
            written.append(entry)
        } else {
            peer.counted[entry.kind ?? entry.status.map { "HTTP \($0)" } ?? "refused", default: 0] += 1
        }
        peers[key] = peer
        return written
    }

    /// The counts of windows that have ended by `now`.
    public func due(now: Date) -> [ChatAuditEntry] {
        lock.lock()
        defer { lock.unlock() }
        return endedWindows(now: now)
    }

    /// Every count so far, ended or not (when the endpoint stops).
    public func drain(now: Date) -> [ChatAuditEntry] {
        lock.lock()
        defer { lock.unlock() }
        let all = peers.sorted { $0.key < $1.key }.compactMap { summary($0.key, $0.value, now: now) }
        peers = [:]
        return all
    }

    private func endedWindows(now: Date) -> [ChatAuditEntry] {
        let ended = peers.filter { now.timeIntervalSince($0.value.since) >= window }
        for key in ended.keys { peers.removeValue(forKey: key) }
        return ended.sorted { $0.key < $1.key }.compactMap { summary($0.key, $0.value, now: now) }
    }

    /// One line for a peer's window; `nil` when every refusal was written one by one already.
    private func summary(_ address: String, _ peer: Peer, now: Date) -> ChatAuditEntry? {
        guard !peer.counted.isEmpty else { return nil }
        let kinds = peer.counted.sorted { $0.value != $1.value ? $0.value > $1.value : $0.key < $1.key }
            .map { "\($0.key) ×\($0.value)" }.joined(separator: ", ")
        let spoke = address == Self.otherPeers ? "from other peers" : "from \(address)"
        var reason = "\(peer.total) requests refused \(spoke) in the last \(Self.duration(window)): \(kinds)"
        if peer.logged == 1 { reason += " (the first is logged on its own)" }
        if peer.logged > 1 { reason += " (the first \(peer.logged) are logged one by one)" }
        return ChatAuditEntry(
            at: now, remoteAddress: address, status: nil, decision: .refused, reason: reason, kind: "refusals counted",
            count: peer.total)
    }

    static func duration(_ seconds: TimeInterval) -> String {
        if seconds == 60 { return "minute" }
        if seconds.truncatingRemainder(dividingBy: 60) == 0 { return "\(Int(seconds / 60)) minutes" }
        return seconds == seconds.rounded() ? "\(Int(seconds)) s" : String(format: "%.1f s", seconds)
    }
}
