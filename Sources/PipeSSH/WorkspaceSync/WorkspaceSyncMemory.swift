import Foundation
import PipeBasics
import PipeCore

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// What this coordinator remembers of its workspace syncs, so that the next one does less:
///
/// - per host cache (host, login, work folder, cache key): the manifest it last sent there, with the token the host
///   keeps beside its copy (`manifest.id`). When the host still holds that token, it answers `pipe-manifest same`
///   instead of sending its manifest (1.2 MB for 10,000 files), and Pipe compares against its own copy. Any other
///   answer — no cache, another token (another coordinator synced, the cache was rebuilt, `manifest.id` is gone) —
///   makes Pipe compare against the manifest the host sends, as without a memory: the host decides, never the memory.
/// - per local folder: the digests of its files by stamp (`WorkspaceDigestCache`), so a new process does not digest
///   files that have not changed since a sync digested them (what git's index does for `git status`).
///
/// Always kept in this process (a bounded number of hosts' manifests); kept in files too when given a folder
/// (`SSHRemoteHost.syncStateDirectory`), so a new `pipe` process starts warm. A damaged or foreign file is ignored.
final class WorkspaceSyncMemory: @unchecked Sendable {
    static let shared = WorkspaceSyncMemory(digests: .shared)
    /// Host caches kept in this process; beyond that the oldest goes (files stay).
    static let capacity = 32
    /// Files kept in the state folder: digests of this many local folders (a `pipe run` checks out into a new folder
    /// each time), manifests of this many host caches; the least recently written go first.
    static let digestFilesKept = 16
    static let manifestFilesKept = 256
    private static let manifestHeader = "pipe-sync-memory 2"
    private static let digestsHeader = "pipe-sync-digests 1"

    /// A manifest sent to a host's cache and the token the host stored with it.
    struct Remembered {
        var token: String
        var entries: [WorkspaceManifest.Entry]
        /// Lines of patches in the host's manifest file (`WorkspaceManifest.patch`).
        var patchLines: Int
    }

    /// Where digests are kept in this process.
    let digests: WorkspaceDigestCache
    private let lock = NSLock()
    private var manifests: [String: Remembered] = [:]
    private var order: [String] = []
    private var loadedRoots = Set<String>()
    /// Per host (`user@address:port`): bytes a second of the last sizeable uncompressed upload, for
    /// `WorkspaceCompressionChoice`. In this process only: a new process judges a link by its round trip first.
    private var linkRates: [String: Double] = [:]

    /// A memory of its own (tests: another coordinator, or a new process).
    init(digests: WorkspaceDigestCache) {
        self.digests = digests
    }

    /// Names one host cache: the same key on another host, login or work folder is another cache.
    static func target(host: HostConfig, cacheKey: String) -> String {
        "\(host.user)@\(host.address):\(host.port)\n\(host.workDirectory)\n\(cacheKey)"
    }

    // MARK: - Link rates

    /// An upload of this much, uncompressed, says how fast the link is (a smaller one ends inside the channel's
    /// window and says little).
    static let linkRateMinimumBytes: Int64 = 4 << 20

    func linkRate(for host: HostConfig) -> Double? {
        lock.lock()
        defer { lock.unlock() }
        return linkRates[host.endpoint]
    }

    func noteLinkRate(_ bytesPerSecond: Double, for host: HostConfig) {
        lock.lock()
        linkRates[host.endpoint] = bytesPerSecond
        lock.unlock()
    }

    // MARK: - Manifests

    /// The token of the manifest last sent to `target` (from this process or from `folder`) and a way to get the
    /// manifest itself: read from a file, it is checked and parsed on first use (`nil` if damaged), which may run
    /// on another thread while the host starts.
    func recall(_ target: String, folder: URL?) -> (token: String, manifest: () -> Remembered?)? {
        lock.lock()
        if let known = manifests[target] {
            lock.unlock()
            return (known.token, { known })
        }
        lock.unlock()
        guard let folder, let data = try? Data(contentsOf: manifestFile(target, in: folder)) else { return nil }
        let file = [UInt8](data)
        guard let newline = file.firstIndex(of: 0x0a) else { return nil }
        let fields = String(decoding: file[..<newline], as: UTF8.self).split(separator: " ")
        guard fields.count == 5, "\(fields[0]) \(fields[1])" == Self.manifestHeader, let patchLines = Int(fields[3])
        else { return nil }
        let token = String(fields[2])
        return (
            token,
            {
                let bytes = file[(newline + 1)...]
                guard SHA256Digest.hex(of: Array(bytes)) == fields[4], let manifest = WorkspaceManifest(bytes: bytes)
                else { return nil }
                let remembered = Remembered(token: token, entries: manifest.entries, patchLines: patchLines)
                self.keep(remembered, for: target)
                return remembered
            }
        )
    }

    /// Records what `target` now holds under `token`: `entries`, in a file with `patchLines` lines of patches.
    func remember(
        token: String, entries: [WorkspaceManifest.Entry], patchLines: Int, for target: String, folder: URL?
    ) {
        let kept = entries.map { entry in
            var kept = entry
            kept.stamp = nil
            return kept
        }
        keep(Remembered(token: token, entries: kept, patchLines: patchLines), for: target)
        guard let folder else { return }
        let bytes = WorkspaceManifest(entries: kept).bytes
        var file = Array("\(Self.manifestHeader) \(token) \(patchLines) \(SHA256Digest.hex(of: bytes))\n".utf8)
        file += bytes
        Self.writeAtomically(file, to: manifestFile(target, in: folder))
        Self.prune(folder, prefix: "manifest-", keeping: Self.manifestFilesKept)
    }

    private func keep(_ remembered: Remembered, for target: String) {
        lock.lock()
        defer { lock.unlock() }
        if manifests.updateValue(remembered, forKey: target) == nil { order.append(target) }
        while order.count > Self.capacity { manifests[order.removeFirst()] = nil }
    }

    // MARK: - Digests

    /// Puts the digests remembered for files under `root` into `digests` (once per process).
    func loadDigests(root: String, folder: URL?) {
        guard let folder else { return }
        lock.lock()
        let first = loadedRoots.insert(root).inserted
        lock.unlock()
        guard first, let data = try? Data(contentsOf: digestsFile(root, in: folder)) else { return }
        digests.load(Self.decodeDigests([UInt8](data)), under: root)
    }

    /// Remembers the digests of `entries` (files under `root`), in this process and, with a folder, for the next.
    func saveDigests(root: String, entries: [WorkspaceManifest.Entry], folder: URL?) {
        var known = [(path: String, known: WorkspaceDigestCache.Known)]()
        known.reserveCapacity(entries.count)
        var out = Array((Self.digestsHeader + "\n").utf8)
        out.reserveCapacity(entries.count * 140)
        for entry in entries where entry.kind == .file && !entry.digest.isEmpty {
            guard let stamp = entry.stamp, stamp.isSettled(after: digests.settleSeconds) else { continue }
            known.append((entry.path, .init(stamp: stamp, digest: entry.digest)))
            guard folder != nil else { continue }
            // Five numbers a file, written without making `String`s (10,000 files).
            for number in [
                Int64(bitPattern: stamp.device), Int64(bitPattern: stamp.inode), stamp.size, stamp.modified,
                stamp.changed,
            ] {
                if number < 0 { out.append(0x2d) }
                WorkspaceManifest.append(number.magnitude, radix: 10, to: &out)
                out.append(0x20)
            }
            out += entry.digest.utf8
            out.append(0x20)
            out += WorkspaceManifest.escape(entry.path).utf8
            out.append(0x0a)
        }
        digests.remember(known, under: root)
        if let folder {
            Self.writeAtomically(out, to: digestsFile(root, in: folder))
            Self.prune(folder, prefix: "digests-", keeping: Self.digestFilesKept)
        }
    }

    /// The stamps and digests of a digests file, by relative path; lines that do not parse are skipped.
    static func decodeDigests(_ file: [UInt8]) -> [String: WorkspaceDigestCache.Known] {
        let header = Array((digestsHeader + "\n").utf8)
        guard file.count >= header.count, file.prefix(header.count).elementsEqual(header) else { return [:] }
        var result = [String: WorkspaceDigestCache.Known](minimumCapacity: file.count / 140)
        file.withUnsafeBufferPointer { bytes in
            var cursor = header.count
            let end = bytes.count
            /// A decimal number (optionally negative) ended by a space.
            func number() -> Int64? {
                var negative = false
                if cursor < end && bytes[cursor] == 0x2d {
                    negative = true
                    cursor += 1
                }
                var value: Int64 = 0
                var digits = 0
                while cursor < end, bytes[cursor] >= 0x30, bytes[cursor] <= 0x39, digits < 19 {
                    value = value * 10 + Int64(bytes[cursor] - 0x30)
                    cursor += 1
                    digits += 1
                }
                guard digits > 0, cursor < end, bytes[cursor] == 0x20 else { return nil }
                cursor += 1
                return negative ? -value : value
            }
            while cursor < end {
                let lineStart = cursor
                guard let lineEnd = (lineStart..<end).first(where: { bytes[$0] == 0x0a }) else { return }
                defer { cursor = lineEnd + 1 }
                guard let device = number(), let inode = number(), let size = number(), let modified = number(),
                    let changed = number(), cursor + 65 < lineEnd, bytes[cursor + 64] == 0x20
                else { continue }
                let digest = String(
                    decoding: UnsafeBufferPointer(rebasing: bytes[cursor..<(cursor + 64)]), as: UTF8.self)
                let raw = String(decoding: UnsafeBufferPointer(rebasing: bytes[(cursor + 65)..<lineEnd]), as: UTF8.self)
                guard let path = WorkspaceManifest.unescape(Substring(raw)) else { continue }
                let stamp = WorkspaceDigestCache.Stamp(
                    device: UInt64(bitPattern: device), inode: UInt64(bitPattern: inode), size: size,
                    modified: modified, changed: changed, listedAt: Int.max)
                result[path] = .init(stamp: stamp, digest: digest)
            }
        }
        return result
    }

    // MARK: - Files

    private func manifestFile(_ target: String, in folder: URL) -> URL {
        folder.appendingPathComponent("manifest-" + SHA256Digest.hex(of: Array(target.utf8)).prefix(32))
    }

    private func digestsFile(_ root: String, in folder: URL) -> URL {
        folder.appendingPathComponent("digests-" + SHA256Digest.hex(of: Array(root.utf8)).prefix(32))
    }

    /// Removes the least recently written files named `prefix…` beyond the newest `kept`.
    static func prune(_ folder: URL, prefix: String, keeping kept: Int) {
        let manager = FileManager.default
        guard
            let names = try? manager.contentsOfDirectory(atPath: folder.path).filter({ $0.hasPrefix(prefix) }),
            names.count > kept
        else { return }
        let dated = names.map { name -> (String, Date) in
            let path = folder.appendingPathComponent(name).path
            return (name, (try? manager.attributesOfItem(atPath: path)[.modificationDate] as? Date) ?? .distantPast)
        }
        for (name, _) in dated.sorted(by: { $0.1 > $1.1 }).dropFirst(kept) {
            try? manager.removeItem(at: folder.appendingPathComponent(name))
        }
    }

    /// Another process may read the file at any time: a temporary file renamed into place. Failures only cost speed.
    private static func writeAtomically(_ bytes: [UInt8], to file: URL) {
        let folder = file.deletingLastPathComponent()
        try? FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let temporary = folder.appendingPathComponent(".\(file.lastPathComponent).\(UUID().uuidString.prefix(8))")
        do {
            try Data(bytes).write(to: temporary)
            _ = rename(temporary.path, file.path)
        } catch {
            try? FileManager.default.removeItem(at: temporary)
        }
    }
}
