import Foundation
import PipeBasics
import PipeTestSupport
import XCTest

@testable import PipeSSH

/// What a coordinator keeps between its processes: its files read back, damaged ones ignored (the syncs that use it
/// against a real host are in `WorkspaceSyncTests`).
final class WorkspaceSyncMemoryTests: XCTestCase {
    private var scratch: TemporaryDirectory!

    override func setUpWithError() throws { scratch = try TemporaryDirectory(prefix: "pipe-sync-memory") }
    override func tearDown() { scratch?.remove() }

    private func stamped(_ path: String, inode: UInt64, digest: String) -> WorkspaceManifest.Entry {
        var entry = WorkspaceManifest.Entry(path: path, kind: .file, mode: 0o644, size: 5, digest: digest)
        entry.stamp = .init(
            device: 2049, inode: inode, size: 5, modified: 1_700_000_000_123_456_789,
            changed: 1_700_000_001_000_000_001, listedAt: Int(time(nil)))
        return entry
    }

    func testDigestsOfOneProcessAreKnownToTheNextByPathAndStamp() throws {
        let digestA = String(repeating: "a", count: 64)
        let digestB = String(repeating: "b", count: 64)
        let entries = [
            stamped("a.txt", inode: 11, digest: digestA), stamped("odd\nname \\ x", inode: 12, digest: digestB),
            WorkspaceManifest.Entry(path: "folder", kind: .directory, mode: 0o755, size: 0, digest: "-"),
        ]
        let first = WorkspaceSyncMemory(digests: WorkspaceDigestCache(settleSeconds: 2))
        first.saveDigests(root: "/work/repo", entries: entries, folder: scratch.url)

        let next = WorkspaceSyncMemory(digests: WorkspaceDigestCache(settleSeconds: 2))
        next.loadDigests(root: "/work/repo", folder: scratch.url)
        let table = next.digests.table(for: "/work/repo")
        XCTAssertEqual(table.count, 2)
        let cache = next.digests
        XCTAssertEqual(cache.digest(in: table, path: "a.txt", stamp: entries[0].stamp!), digestA)
        XCTAssertEqual(cache.digest(in: table, path: "odd\nname \\ x", stamp: entries[1].stamp!), digestB)
        var touched = entries[0].stamp!
        touched.changed += 1
        XCTAssertNil(cache.digest(in: table, path: "a.txt", stamp: touched), "a changed status is another content")
        var moved = entries[0].stamp!
        moved.inode = 99
        XCTAssertNil(cache.digest(in: table, path: "a.txt", stamp: moved))
        XCTAssertTrue(next.digests.table(for: "/work/other").isEmpty, "another folder knows nothing")
    }

    func testOnlyTheNewestDigestFilesAreKept() throws {
        let memory = WorkspaceSyncMemory(digests: WorkspaceDigestCache(settleSeconds: 2))
        let entry = stamped("a.txt", inode: 1, digest: String(repeating: "e", count: 64))
        let count = WorkspaceSyncMemory.digestFilesKept + 3
        for index in 0..<count {
            memory.saveDigests(root: "/checkouts/run-\(index)", entries: [entry], folder: scratch.url)
            // Distinct modification times, oldest first.
            let files = try FileManager.default.contentsOfDirectory(atPath: scratch.url.path)
            for name in files {
                let path = scratch.appending(name).path
                if let date = try FileManager.default.attributesOfItem(atPath: path)[.modificationDate] as? Date,
                    date > Date(timeIntervalSinceNow: -1)
                {
                    try FileManager.default.setAttributes(
                        [.modificationDate: Date(timeIntervalSince1970: 1_700_000_000 + Double(index))],
                        ofItemAtPath: path)
                }
            }
        }
        let left = try FileManager.default.contentsOfDirectory(atPath: scratch.url.path)
        XCTAssertEqual(left.count, WorkspaceSyncMemory.digestFilesKept)
        let next = WorkspaceSyncMemory(digests: WorkspaceDigestCache(settleSeconds: 2))
        next.loadDigests(root: "/checkouts/run-\(count - 1)", folder: scratch.url)
        XCTAssertEqual(next.digests.table(for: "/checkouts/run-\(count - 1)").count, 1, "the newest is kept")
        next.loadDigests(root: "/checkouts/run-0", folder: scratch.url)
        XCTAssertTrue(next.digests.table(for: "/checkouts/run-0").isEmpty, "the oldest went")
    }

    func testAFileStampedWithinTheSettleTimeIsNeitherKeptNorTrusted() {
        let cache = WorkspaceDigestCache(settleSeconds: 2)
        var entry = stamped("fresh.txt", inode: 1, digest: String(repeating: "c", count: 64))
        entry.stamp!.changed = Int64(time(nil)) * 1_000_000_000
        cache.remember([(entry.path, .init(stamp: entry.stamp!, digest: entry.digest))], under: "/r")
        XCTAssertTrue(cache.table(for: "/r").isEmpty)
    }

    func testTheManifestComesBackWithItsTokenAndADamagedFileIsIgnored() throws {
        let entries = [
            WorkspaceManifest.Entry(path: "a", kind: .directory, mode: 0o755, size: 0, digest: "-"),
            WorkspaceManifest.Entry(
                path: "a/b", kind: .file, mode: 0o755, size: 3, digest: String(repeating: "d", count: 64)),
        ]
        let target = "user@127.0.0.1:22\nwork\nrepo"
        WorkspaceSyncMemory(digests: .init(settleSeconds: 2)).remember(
            token: "0123456789abcdef", entries: entries, patchLines: 7, for: target, folder: scratch.url)

        let recalled = try XCTUnwrap(
            WorkspaceSyncMemory(digests: .init(settleSeconds: 2)).recall(target, folder: scratch.url))
        XCTAssertEqual(recalled.token, "0123456789abcdef")
        XCTAssertEqual(recalled.manifest()?.entries, entries)
        XCTAssertEqual(recalled.manifest()?.patchLines, 7)
        XCTAssertNil(WorkspaceSyncMemory(digests: .init(settleSeconds: 2)).recall("other", folder: scratch.url))

        let file = try XCTUnwrap(
            FileManager.default.contentsOfDirectory(at: scratch.url, includingPropertiesForKeys: nil).first)
        var damaged = [UInt8](try Data(contentsOf: file))
        damaged[damaged.count - 2] ^= 0x20
        try Data(damaged).write(to: file)
        let again = try XCTUnwrap(
            WorkspaceSyncMemory(digests: .init(settleSeconds: 2)).recall(target, folder: scratch.url))
        XCTAssertNil(again.manifest(), "a manifest whose digest does not match is not used")
    }
}
