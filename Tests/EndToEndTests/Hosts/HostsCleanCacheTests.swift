import Foundation
import PipeTestSupport
import XCTest

/// `pipe hosts clean` removes workspace caches unused for longer than `--cache-days`, never one a sync holds.
final class HostsCleanCacheTests: HostsEndToEndTests {
    private let old = "0123456789abcdef"
    private let locked = "fedcba9876543210"
    private let fresh = "00112233aabbccdd"

    /// Makes a cache folder on mac-1 as a sync leaves it (`tree/`, `manifest`), its manifest dated `stamp`
    /// (`touch -t`), optionally with a sync's lock in it; returns the cache folder.
    @discardableResult
    private func makeCache(_ key: String, stamp: String?, lockedBy pid: String? = nil) throws -> String {
        let mac1 = host("mac-1")
        let folder = "/home/\(mac1.user)/\(workDirectory("mac-1"))/cache/\(key)"
        var line =
            "mkdir -p \(folder)/tree/Sources && echo 'let a = 1' > \(folder)/tree/Sources/A.swift && "
            + "echo 'Sources/A.swift 10' > \(folder)/manifest"
        if let pid { line += " && mkdir \(folder)/lock && echo \(pid) > \(folder)/lock/pid" }
        if let stamp { line += " && /usr/bin/touch -t \(stamp) \(folder)/manifest" }
        let made = try mac1.inspect(line)
        XCTAssertEqual(made.exitCode, 0, made.combined)
        return folder
    }

    private func exists(_ path: String) throws -> Bool {
        try host("mac-1").inspect("[ -e \(path) ]").exitCode == 0
    }

    func testCachesPastTheRetentionGoButNotOneASyncHoldsNorARecentOne() throws {
        let oldFolder = try makeCache(old, stamp: "202601010000")
        // A sync in progress: its lock names a live process (pid 1 stands in for it).
        let lockedFolder = try makeCache(locked, stamp: "202601010000", lockedBy: "1")
        let freshFolder = try makeCache(fresh, stamp: nil)

        let dry = try project.pipe(["hosts", "clean", "mac-1", "--dry-run"])
        XCTAssertEqual(dry.exitCode, 0, dry.combined)
        XCTAssertTrue(dry.stdout.contains("mac-1: would free "), dry.combined)
        XCTAssertTrue(dry.stdout.contains("in 1 workspace cache unused for more than 14 days (\(old))"), dry.combined)
        XCTAssertTrue(try exists(oldFolder), "--dry-run removes nothing")

        let clean = try project.pipe(["hosts", "clean", "mac-1"])
        XCTAssertEqual(clean.exitCode, 0, clean.combined)
        XCTAssertTrue(clean.stdout.contains("mac-1: freed "), clean.combined)
        XCTAssertTrue(clean.stdout.contains("in use by a sync, left alone: \(locked)"), clean.combined)
        XCTAssertFalse(try exists(oldFolder), "the old cache is gone")
        XCTAssertTrue(try exists("\(lockedFolder)/tree/Sources/A.swift"), "a held cache is left whole")
        XCTAssertTrue(try exists("\(lockedFolder)/lock/pid"), "and its lock stays its holder's")
        XCTAssertTrue(try exists("\(freshFolder)/manifest"), "a recent cache stays")

        // No retention takes the recent one too, and still not the held one.
        let all = try project.pipe(["hosts", "clean", "mac-1", "--cache-days", "0"])
        XCTAssertEqual(all.exitCode, 0, all.combined)
        XCTAssertTrue(all.stdout.contains("in 1 workspace cache unused for more than 0 days (\(fresh))"), all.combined)
        XCTAssertFalse(try exists(freshFolder))
        XCTAssertTrue(try exists("\(lockedFolder)/tree/Sources/A.swift"))
    }

    func testANegativeRetentionIsAUsageError() throws {
        let result = try project.pipe(["hosts", "clean", "--cache-days", "-1"])
        XCTAssertEqual(result.exitCode, 2, result.combined)
        XCTAssertTrue(result.combined.contains("--cache-days"), result.combined)
    }
}
