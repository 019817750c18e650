import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Values parsed from files, kept while the files stay the same: a long-lived process (the controller, which needs
/// the same pipeline and hosts file on every scheduling pass and for every run it starts) parses each once, and
/// again only after a change.
///
/// A file counts as changed when its device, inode, size, modification or status-change time (nanoseconds) differ
/// from when it was parsed, or when it appeared or went away: an editor's save, `mv` of a new version, `touch`.
/// Like git's index, a file changed less than `settleSeconds` before it was parsed is not trusted (a second write in
/// the same timestamp tick could keep its stamp): it is parsed again on every use until it has settled. Failures are
/// never kept, so a fixed file (or a fixed environment variable, identity file) is seen at the next use.
final class ParsedFileCache<Value>: @unchecked Sendable {
    /// How old a file's last change must be before its parsed value is kept.
    static var settleSeconds: Double { 2 }

    /// What `stat` says about a file, or that it is missing.
    struct Stamp: Equatable {
        var device: UInt64
        var inode: UInt64
        var size: Int64
        var modified: Int64
        var changed: Int64

        /// `nil` when the file cannot be looked at (missing): a stamp of its own, so its coming back is a change.
        init?(path: String) {
            var info = stat()
            guard stat(path, &info) == 0 else { return nil }
            device = UInt64(info.st_dev)
            inode = UInt64(info.st_ino)
            size = Int64(info.st_size)
            modified = Int64(info.st_mtim.tv_sec) * 1_000_000_000 + Int64(info.st_mtim.tv_nsec)
            changed = Int64(info.st_ctim.tv_sec) * 1_000_000_000 + Int64(info.st_ctim.tv_nsec)
        }

        /// Whether the file last changed at least `settleSeconds` before `now`.
        func isSettled(at now: Date) -> Bool {
            let latest = Double(max(modified, changed)) / 1_000_000_000
            return latest + ParsedFileCache.settleSeconds <= now.timeIntervalSince1970
        }
    }

    private struct Entry {
        var stamps: [Stamp?]
        var value: Value
    }

    private let lock = NSLock()
    private var entries: [String: Entry] = [:]
    private let clock: () -> Date
    private var parseCount = 0

    init(clock: @escaping () -> Date = Date.init) {
        self.clock = clock
    }

    /// The value kept under `key` while none of `files` changed since it was parsed; otherwise `parse()`'s result,
    /// kept when every file has settled. `parse` runs under the cache's lock: one parse per change, however many
    /// threads ask.
    func value(for key: String, files: [URL], parse: () throws -> Value) throws -> Value {
        let stamps = files.map { Stamp(path: $0.path) }
        lock.lock()
        defer { lock.unlock() }
        if let entry = entries[key], entry.stamps == stamps { return entry.value }
        entries[key] = nil
        parseCount += 1
        let value = try parse()
        let now = clock()
        // Stamps taken before parsing: a change during the parse shows as a difference at the next use.
        if stamps.allSatisfy({ $0?.isSettled(at: now) ?? true }) {
            entries[key] = Entry(stamps: stamps, value: value)
        }
        return value
    }

    /// Forgets every value (SIGHUP: read everything again).
    func removeAll() {
        lock.lock()
        entries = [:]
        lock.unlock()
    }

    /// How many times a value was parsed (for tests and measurements).
    var parses: Int {
        lock.lock()
        defer { lock.unlock() }
        return parseCount
    }

    /// How many values are kept.
    var count: Int {
        lock.lock()
        defer { lock.unlock() }
        return entries.count
    }
}
