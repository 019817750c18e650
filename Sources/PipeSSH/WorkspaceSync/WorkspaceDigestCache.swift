import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// The digests of local files already computed, per workspace folder and relative path, each with the stamp that
/// changes whenever a file's content can have changed: device, inode, size, modification and status-change times
/// (nanoseconds). A coordinator that syncs a folder it keeps (a warm session, the controller, or a new process that
/// loaded `WorkspaceSyncMemory`'s file) then digests only what changed; a fresh checkout gets new inodes and misses,
/// as it must.
///
/// Like git's index, it does not trust a file whose status changed less than `settleSeconds` before it was listed:
/// on a filesystem with coarse timestamps a write in that same second would keep the stamp.
final class WorkspaceDigestCache: @unchecked Sendable {
    static let shared = WorkspaceDigestCache(settleSeconds: 2)
    /// Seconds a file's status must be older than its listing for its digest to be kept (`settleSeconds`).
    let settleSeconds: Int
    /// Files remembered across all folders; beyond that everything is forgotten (and digested again).
    static let capacity = 500_000

    /// What identifies one version of a file's content.
    struct Stamp: Hashable {
        var device: UInt64
        var inode: UInt64
        var size: Int64
        var modified: Int64
        var changed: Int64
        /// When it was taken (seconds), not part of the identity.
        var listedAt: Int

        init(_ info: stat, listedAt: Int) {
            device = UInt64(info.st_dev)
            inode = UInt64(info.st_ino)
            size = Int64(info.st_size)
            modified = Int64(info.st_mtim.tv_sec) * 1_000_000_000 + Int64(info.st_mtim.tv_nsec)
            changed = Int64(info.st_ctim.tv_sec) * 1_000_000_000 + Int64(info.st_ctim.tv_nsec)
            self.listedAt = listedAt
        }

        init(device: UInt64, inode: UInt64, size: Int64, modified: Int64, changed: Int64, listedAt: Int) {
            self.device = device
            self.inode = inode
            self.size = size
            self.modified = modified
            self.changed = changed
            self.listedAt = listedAt
        }

        /// The same file, unchanged: everything but the moment the stamps were taken.
        func sameFile(as other: Stamp) -> Bool {
            inode == other.inode && modified == other.modified && changed == other.changed && size == other.size
                && device == other.device
        }

        func isSettled(after seconds: Int) -> Bool { changed / 1_000_000_000 + Int64(seconds) < Int64(listedAt) }
    }

    /// A digest and the stamp of the content it was computed from.
    struct Known {
        var stamp: Stamp
        var digest: String
    }

    /// An empty cache of its own (tests; everything else shares `shared`).
    init(settleSeconds: Int) {
        self.settleSeconds = settleSeconds
    }

    private let lock = NSLock()
    private var tables: [String: [String: Known]] = [:]
    private var count = 0

    /// What is known under `root` (relative paths), for lookups without the lock.
    func table(for root: String) -> [String: Known] {
        lock.lock()
        defer { lock.unlock() }
        return tables[root] ?? [:]
    }

    /// The digest of `path` under `root` if its content is the one a digest was taken of.
    func digest(in table: [String: Known], path: String, stamp: Stamp) -> String? {
        guard stamp.isSettled(after: settleSeconds), let known = table[path], known.stamp.sameFile(as: stamp) else {
            return nil
        }
        return known.digest
    }

    /// Remembers digests of files under `root` (those whose stamp is settled).
    func remember(_ digests: [(path: String, known: Known)], under root: String) {
        lock.lock()
        defer { lock.unlock() }
        var table = tables.removeValue(forKey: root) ?? [:]
        count -= table.count
        if count + table.count + digests.count > Self.capacity {
            tables.removeAll()
            count = 0
        }
        for (path, known) in digests where known.stamp.isSettled(after: settleSeconds) { table[path] = known }
        count += table.count
        tables[root] = table
    }

    /// Adds what an earlier process remembered, where nothing newer is known.
    func load(_ table: [String: Known], under root: String) {
        lock.lock()
        defer { lock.unlock() }
        guard count + table.count <= Self.capacity else { return }
        var current = tables.removeValue(forKey: root) ?? [:]
        count -= current.count
        current.merge(table) { newer, _ in newer }
        count += current.count
        tables[root] = current
    }
}
