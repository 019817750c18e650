import Foundation
import PipeCore
import PipeStore
import XCTest

/// Host health checks as `pipe hosts check` records them, and what the store makes of them.
final class HostHealthTests: StoreTestCase {
    private let epoch = StoreFixtures.epoch

    private func check(_ host: String, _ minutes: Double, usable: Bool, problem: String? = nil) -> HostHealthRecord {
        HostHealthRecord(
            host: host, checkedAt: epoch.addingTimeInterval(minutes * 60), usable: usable, problem: problem,
            latencySeconds: usable ? 0.004 : nil, source: "pipe hosts check")
    }

    func testAHostIsOutOfRotationAfterAFailedCheckUntilACheckPassesAgain() throws {
        let store = try openStore()
        XCTAssertEqual(try store.hostHealth(["mac-1"]), [], "never checked")

        try store.recordHealth(check("mac-1", 0, usable: true))
        var health = try XCTUnwrap(try store.hostHealth(["mac-1"]).first)
        XCTAssertTrue(health.isInRotation)
        XCTAssertEqual(health.consecutiveFailures, 0)
        XCTAssertEqual(health.latest.latencySeconds, 0.004)

        try store.recordHealth(check("mac-1", 5, usable: false, problem: "unreachable: connection refused"))
        try store.recordHealth(check("mac-1", 10, usable: false, problem: "unreachable: connection refused"))
        health = try XCTUnwrap(try store.hostHealth(["mac-1"]).first)
        XCTAssertFalse(health.isInRotation)
        XCTAssertEqual(health.consecutiveFailures, 2)
        XCTAssertEqual(health.latest.problem, "unreachable: connection refused")
        XCTAssertEqual(health.lastUsableAt, epoch)
        XCTAssertEqual(health.latest.checkedAt, epoch.addingTimeInterval(600))

        try store.recordHealth(check("mac-1", 15, usable: true))
        health = try XCTUnwrap(try store.hostHealth(["mac-1"]).first)
        XCTAssertTrue(health.isInRotation)
        XCTAssertEqual(health.consecutiveFailures, 0)
        XCTAssertEqual(health.lastUsableAt, epoch.addingTimeInterval(900))
    }

    func testTheLatestCheckIsTheLatestByTimeNotByArrival() throws {
        let store = try openStore()
        try store.recordHealth(check("mac-1", 10, usable: true))
        // A slow check that started earlier reports last: it does not undo the newer one.
        try store.recordHealth(check("mac-1", 2, usable: false, problem: "timeout"))
        XCTAssertEqual(try store.hostHealth(["mac-1"]).first?.isInRotation, true)
    }

    func testEveryHostOrTheOnesAskedForInTheOrderAsked() throws {
        let store = try openStore()
        try store.recordHealth(check("mac-2", 0, usable: false))
        try store.recordHealth(check("mac-1", 0, usable: true))
        XCTAssertEqual(try store.hostHealth(nil).map(\.host), ["mac-1", "mac-2"])
        XCTAssertEqual(try store.hostHealth(["mac-2", "mac-9", "mac-1"]).map(\.host), ["mac-2", "mac-1"])
        XCTAssertEqual(
            try store.hostHealth(["mac-2"]).first?.latest.problem, "failed its health check",
            "an unusable record always says something")
    }

    func testOnlyTheLatestHundredChecksOfAHostAreKept() throws {
        let store = try openStore()
        for minute in 0..<130 { try store.recordHealth(check("mac-1", Double(minute), usable: minute % 2 == 0)) }
        try store.recordHealth(check("mac-2", 0, usable: true))
        let raw = try rawDatabase()
        XCTAssertEqual(try count("host_health", raw, where: "host = 'mac-1'"), 100)
        XCTAssertEqual(try count("host_health", raw, where: "host = 'mac-2'"), 1)
        XCTAssertEqual(
            try raw.text("SELECT min(checked_at) FROM host_health WHERE host = 'mac-1'"),
            "2026-11-18T11:36:40.000Z", "the oldest 30 went")
    }

    func testNonsenseIsRefusedWithAMessage() throws {
        let store = try openStore()
        var record = check("mac-1", 0, usable: true)
        record.latencySeconds = -1
        XCTAssertThrowsError(try store.recordHealth(record)) { XCTAssertTrue("\($0)".contains("-1"), "\($0)") }
        XCTAssertThrowsError(try store.recordHealth(check("", 0, usable: true)))
    }

    func testAVersion2StoreIsUpgradedKeepingItsRunsAndThenLeases() throws {
        let fixtures = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Fixtures")
        let v2 = folder.appending("v2.db")
        let raw = try SQLiteDatabase(path: v2.path)
        try raw.executeScript(String(contentsOf: fixtures.appendingPathComponent("schema-v2.sql"), encoding: .utf8))
        try raw.executeScript(String(contentsOf: fixtures.appendingPathComponent("v1-runs.sql"), encoding: .utf8))
        raw.close()
        XCTAssertEqual(try SQLiteDatabase(path: v2.path).integer("PRAGMA user_version"), 2)

        let store = try SQLiteRunStore(location: v2)
        XCTAssertEqual(try store.schemaVersion(), SQLiteRunStore.supportedSchemaVersion)
        XCTAssertEqual(try store.listRuns(RunFilter()).count, 2)
        XCTAssertTrue(try store.leaseHostSlot(host: "mac-1", capacity: 1, runID: "20261118-110000-3c4d").isGranted)
        try store.recordHealth(check("mac-1", 0, usable: true))
        XCTAssertEqual(try store.hostHealth(nil).count, 1)

        // Exactly the objects a new store has.
        _ = try openStore()
        func objects(_ path: String) throws -> [String] {
            try SQLiteDatabase(path: path).query(
                "SELECT type || ' ' || name FROM sqlite_schema WHERE name NOT LIKE 'sqlite_%' ORDER BY 1"
            ) { $0.text(0) ?? "" }
        }
        XCTAssertEqual(try objects(v2.path), try objects(storeURL.path))
    }
}
