import XCTest

@testable import PipeCLI

final class HostsCleanCachesTests: XCTestCase {
    func testReadsRemovedBusyAndFailedCachesAndIgnoresOtherLines() {
        let removals = HostsCleanCaches.read(
            """
            pipe-cache 0a1b2c3d4e5f6789 12 40960
            pipe-cache-busy 00ff00ff00ff00ff
            pipe-cache-failed 1111222233334444
            find: ‘x’: Permission denied
            pipe-cache truncated
            """)
        XCTAssertEqual(
            removals,
            [
                .init(key: "0a1b2c3d4e5f6789", state: .removed, files: 12, bytes: 40960),
                .init(key: "00ff00ff00ff00ff", state: .busy),
                .init(key: "1111222233334444", state: .failed),
            ])
    }

    func testTheCommandGivesTheRetentionInMinutesAndTheMode() {
        let command = HostsCleanCaches.command(workDirectory: "pipe work", days: 14, dryRun: true)
        XCTAssertTrue(command.hasSuffix(" pipe-clean-caches 'pipe work' 20160 measure"), command)
        XCTAssertTrue(
            HostsCleanCaches.command(workDirectory: "w", days: 0, dryRun: false).hasSuffix(" w 0 remove"))
    }

    func testTheReportSumsWhatWasFreedAndNamesWhatWasLeft() {
        let lines = HostsCleanCaches.report(
            [
                ("mac-1", [.init(key: "aa", state: .removed, files: 2, bytes: 1024), .init(key: "bb", state: .busy)]),
                ("mac-2", []),
            ], days: 14, dryRun: false)
        XCTAssertEqual(lines.count, 1)
        XCTAssertTrue(lines[0].hasPrefix("mac-1: freed "), lines[0])
        XCTAssertTrue(lines[0].contains("(1024 bytes, 2 files) in 1 workspace cache unused for more than 14 days (aa)"))
        XCTAssertTrue(lines[0].hasSuffix("; in use by a sync, left alone: bb"), lines[0])
    }
}
