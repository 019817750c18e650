import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// The digests of local files this process already computed, keyed by what changes whenever a file's content can
/// have changed: path, device, inode, size, modification and status-change times (nanoseconds). A long-lived
/// coordinator (the controller, a warm session) that syncs a work tree it keeps — libgit2 rewrites only the files a
/// new commit changes — then digests only those; a fresh checkout gets new inodes and misses, as it must.
///
/// Like git's index, it does not trust a file whose status changed less than `settleSeconds` before it was listed:
/// on a filesystem with coarse timestamps a write in that same second would keep the stamp.
final class WorkspaceDigestCache: @unchecked Sendable {
    static let shared = WorkspaceDigestCache()
    static let settleSeconds = 2
    static let capacity = 500_000

    struct Stamp: Hashable {
        var path: String
        var device: UInt64
        var inode: UInt64
        var size: Int64
        var modified: Int64
        var changed: Int64
        var listedAt: Int

        init(path: String, _ info: stat) {
            self.path = path
            device = UInt64(info.st_dev)
            inode = UInt64(info.st_ino)
            size = Int64(info.st_size)
            modified = Int64(info.st_mtim.tv_sec) * 1_000_000_000 + Int64(info.st_mtim.tv_nsec)
            changed = Int64(info.st_ctim.tv_sec) * 1_000_000_000 + Int64(info.st_ctim.tv_nsec)
            listedAt = Int(time(nil))
        }

        /// The stamp without the moment it was taken.
        var key: Key { Key(path: path, device: device, inode: inode, size: size, modified: modified, changed: changed) }

        var isSettled: Bool { changed / 1_000_000_000 + Int64(WorkspaceDigestCache.settleSeconds) < Int64(listedAt) }
    }

    struct Key: Hashable {
        var path: String
        var device: UInt64
        var inode: UInt64
        var size: Int64
        var modified: Int64
        var changed: Int64
    }

    private let lock = NSLock()
    private var digests: [Key: String] = [:]

    func digest(for stamp: Stamp) -> String? {
        guard stamp.isSettled else { return nil }
        lock.lock()
        defer { lock.unlock() }
        return digests[stamp.key]
    }

    func remember(_ digest: String, for stamp: Stamp) {
        guard stamp.isSettled else { return }
        lock.lock()
        defer { lock.unlock() }
        if digests.count >= Self.capacity { digests.removeAll(keepingCapacity: true) }
        digests[stamp.key] = digest
    }
}
