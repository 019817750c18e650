import Foundation

/// The runs list's live feeds, shared: however many browsers follow one filter, the store is read for it at most
/// once per `periodSeconds`, by whichever follower asks first once the last read is that old; the others wait for
/// its rows. At most `capacity` distinct filters are followed at once; a feed nobody followed for `idleSeconds`
/// is dropped. Thread-safe.
public final class RunsFeeds: @unchecked Sendable {
    /// One filter's latest rows; `version` grows when they change.
    final class Feed {
        var rows: [WebRunRow]?
        var version = 0
        var readAt: Date?
        var reading = false
        var followers = 0
        var lastFollowed = Date()
        var reads = 0
    }

    public let capacity: Int
    public let periodSeconds: Double
    public let idleSeconds: Double
    private let condition = NSCondition()
    private var feeds: [WebRunsFilter: Feed] = [:]

    public init(capacity: Int = 256, periodSeconds: Double = 1, idleSeconds: Double = 60) {
        self.capacity = capacity
        self.periodSeconds = periodSeconds
        self.idleSeconds = idleSeconds
    }

    /// Starts following `filter`; `nil` when `capacity` other filters are followed already.
    func follow(_ filter: WebRunsFilter, now: Date = Date()) -> Feed? {
        condition.lock()
        defer { condition.unlock() }
        if feeds[filter] == nil {
            feeds = feeds.filter {
                $0.value.followers > 0 || now.timeIntervalSince($0.value.lastFollowed) < idleSeconds
            }
            if feeds.count >= capacity, let idle = feeds.first(where: { $0.value.followers == 0 }) {
                feeds[idle.key] = nil
            }
            guard feeds.count < capacity else { return nil }
            feeds[filter] = Feed()
        }
        let feed = feeds[filter]!
        feed.followers += 1
        feed.lastFollowed = now
        return feed
    }

    func unfollow(_ feed: Feed) {
        condition.lock()
        feed.followers -= 1
        feed.lastFollowed = Date()
        condition.unlock()
    }

    /// The feed's rows once their version is past `version`, or the current ones after `waitSeconds`; reads the
    /// store with `read` when no follower has for `periodSeconds`.
    func rows(
        _ feed: Feed, after version: Int, waitSeconds: Double, read: () throws -> [WebRunRow]
    ) -> (rows: [WebRunRow]?, version: Int) {
        condition.lock()
        let due = !feed.reading && (feed.readAt.map { Date().timeIntervalSince($0) >= periodSeconds } ?? true)
        if due {
            feed.reading = true
            feed.reads += 1
            condition.unlock()
            let fresh = try? read()
            condition.lock()
            feed.reading = false
            feed.readAt = Date()
            if let fresh, fresh != feed.rows {
                feed.rows = fresh
                feed.version += 1
            }
            condition.broadcast()
        } else {
            let deadline = Date().addingTimeInterval(waitSeconds)
            while feed.version <= version, condition.wait(until: deadline) {}
        }
        defer { condition.unlock() }
        return (feed.rows, feed.version)
    }

    /// Distinct filters followed now, or recently enough to be kept.
    public var count: Int {
        condition.lock()
        defer { condition.unlock() }
        return feeds.count
    }

    /// How often the store was read for `filter` (for tests and diagnostics).
    public func reads(_ filter: WebRunsFilter) -> Int {
        condition.lock()
        defer { condition.unlock() }
        return feeds[filter]?.reads ?? 0
    }
}
