import PipeCore

/// The decisions of `WarmSessionPool`, apart from SSH and threads: which idle session a run may take, and which
/// ones to close. Times are seconds of a monotonic clock.
struct IdleSessionShelf<Session> {
    /// A session waiting for a run.
    struct Entry {
        /// The host as the session was opened for it: a session serves only that exact configuration.
        var host: HostConfig
        var session: Session
        var openedAt: Double
        /// When its last run gave it back.
        var idleSince: Double
    }

    /// Oldest first: a session given back goes last.
    private(set) var entries: [Entry] = []

    /// Removes and returns the session given back last of exactly `host` (a hosts file changed since, or reloaded
    /// with SIGHUP, asks for a new connection) that has been idle less than `limit`, with the entries of any host
    /// idle for `limit` or longer, to close. The last one given back is the one most likely still alive; the older
    /// ones reach the limit and close.
    mutating func take(_ host: HostConfig, now: Double, limit: Double) -> (taken: Entry?, expired: [Entry]) {
        let expired = expire(now: now, limit: limit)
        guard let index = entries.lastIndex(where: { $0.host == host }) else { return (nil, expired) }
        return (entries.remove(at: index), expired)
    }

    /// Shelves `entry`, and returns the entries to close instead: all of them when `limit` is 0 or less (no session
    /// is kept), those of the same host name but another configuration (no run asks for those any more), and
    /// beyond `cap` sessions for the host, the ones idle longest.
    mutating func put(_ entry: Entry, cap: Int, limit: Double) -> [Entry] {
        guard limit > 0 else { return [entry] }
        var closing = entries.filter { $0.host.name == entry.host.name && $0.host != entry.host }
        entries.removeAll { $0.host.name == entry.host.name && $0.host != entry.host }
        entries.append(entry)
        let sameHost = entries.indices.filter { entries[$0].host == entry.host }
        let surplus = sameHost.prefix(max(0, sameHost.count - max(1, cap)))
        closing += surplus.map { entries[$0] }
        for index in surplus.reversed() { entries.remove(at: index) }
        return closing
    }

    /// Removes and returns the entries idle for `limit` or longer (every one when `limit` is 0 or less).
    mutating func expire(now: Double, limit: Double) -> [Entry] {
        let isExpired = { (entry: Entry) in limit <= 0 || now - entry.idleSince >= limit }
        let expired = entries.filter(isExpired)
        entries.removeAll(where: isExpired)
        return expired
    }

    /// When the next entry reaches `limit`; `nil` with none.
    func nextExpiry(limit: Double) -> Double? {
        entries.map { $0.idleSince + max(0, limit) }.min()
    }

    /// Removes and returns every entry.
    mutating func removeAll() -> [Entry] {
        defer { entries = [] }
        return entries
    }
}
