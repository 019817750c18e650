import Foundation
import PipeBasics
import PipeCore
import PipeStorePostgres
import PipeTestSupport
import XCTest

@testable import PipeStore

/// `pipe store migrate`'s copy: every table, SQLite to PostgreSQL and back, the same answers afterwards, keys that
/// go on where the copied ones end, live processes' tables left out, and a target that holds rows refused.
final class StoreCopyTests: ConformanceTestCase {
    private let owner = RunOwner(hostname: "ci-1", pid: 4242, processStart: "boot:1")

    /// A store with a row in every copied table.
    private func filled(_ store: any RelationalRunStore) throws -> [String] {
        let runIDs = (0..<3).map { StoreFixtures.runID(3_000 + $0 * 60) }
        for runID in runIDs { try SimulatedRun.perform(store, runID: runID, failing: runID == runIDs[1]) }
        _ = try store.appendSignoff(
            SignoffRequest(
                runID: runIDs[0], layer: "unit", decision: .signedOff, signedBy: "erin", at: StoreFixtures.epoch,
                fields: ["app_build": "42"], buildSHA256: String(repeating: "e", count: 64)))
        try store.saveReleaseBuild(
            StoreFixtures.releaseBuild(
                runID: runIDs[0], layer: "unit", commit: String(repeating: "ab", count: 20),
                ipa: String(repeating: "e", count: 64)))
        try store.recordArtifacts(
            [ArtifactRecord(kind: .log, path: "artifacts/\(runIDs[0])/run.log", bytes: 9)], runID: runIDs[0],
            layer: nil, attempt: nil)
        try store.recordHealth(
            HostHealthRecord(
                host: "mac-1", checkedAt: StoreFixtures.epoch, usable: true, latencySeconds: 0.5, source: "check"))
        _ = try store.enqueue(
            QueueRequest(pipeline: "app-intents", source: .manual, requestedBy: "erin"), at: StoreFixtures.epoch)
        _ = try store.scheduleState(name: "nightly", baseline: StoreFixtures.epoch)
        try store.recordWatchHead(WatchHead(watch: "main", branch: "main", sha: "abc", seenAt: StoreFixtures.epoch))
        try store.appendAudit(source: "chat", entry: #"{"command":"run"}"#, at: StoreFixtures.epoch)
        _ = try store.recordDelivery(
            ForgeDelivery(
                forge: "github", deliveryID: "d-1", bodyDigest: "aa", event: "push", rateKey: nil,
                receivedAt: StoreFixtures.epoch))
        _ = try store.enqueueForgeUpdate(
            ForgeUpdate.Draft(
                forge: "github", target: "status a", kind: "status", payload: "{}", runID: runIDs[0],
                createdAt: StoreFixtures.epoch))
        try store.recordForgeObjectID(forge: "github", key: "check a", id: "1", at: StoreFixtures.epoch)
        try store.recordForgeApproval(
            ForgeApproval(
                forge: "github", repository: "acme/app", number: 1, headSHA: "abc", approvedBy: "erin", via: "chat",
                approvedAt: StoreFixtures.epoch))
        let later = StoreFixtures.epoch.addingTimeInterval(86_400)
        _ = try store.claimOnce(kind: "chat-signature", key: "ab01", until: later, now: StoreFixtures.epoch)
        _ = try store.takeFromBucket("chat-user:U1", capacity: 3, perSecond: 0.05, now: StoreFixtures.epoch)
        _ = try store.leaseHostSlot(host: "mac-1", capacity: 1, runID: runIDs[2], owner: owner, at: Date()) { _ in
            .alive
        }
        _ = try store.acquireControllerLock(owner: owner, configPath: nil, at: Date()) { _ in .alive }
        return runIDs
    }

    /// What the store answers about everything it holds.
    private func answers(_ store: any RelationalRunStore, _ runIDs: [String]) throws -> [String] {
        var answers = try runIDs.map { runID -> String in
            let run = try XCTUnwrap(try store.run(runID))
            let events = try store.events(runID: runID, after: 0, layer: nil, limit: 1_000)
            let builds = "\(try store.releaseBuilds(runID: runID))"
            return try StoreFixtures.json(run.record) + "\(run.signoffs)\(run.runArtifacts)\(events)" + builds
        }
        answers += [
            "\(try store.listRuns(RunFilter()))", "\(try store.flakyTests(pipeline: nil, since: nil))",
            "\(try store.hostHealth(nil))", "\(try store.queueItems(states: nil, limit: 10))",
            "\(try store.scheduleStates())", "\(try store.watchHeads())",
            "\(try store.auditEntries(source: nil, limit: 10))",
            "\(try store.forgeUpdates(states: nil, limit: 10))",
            try store.forgeObjectID(forge: "github", key: "check a") ?? "-",
            "\(try store.forgeApproval(forge: "github", repository: "acme/app", number: 1, headSHA: "abc").map { "\($0)" } ?? "-")",
            // A request seen before the copy is a replay after it.
            "\(try store.claimOnce(kind: "chat-signature", key: "ab01", until: .distantFuture, now: StoreFixtures.epoch))",
        ]
        return answers
    }

    func testEveryTableGoesToPostgreSQLAndBackWithTheSameAnswers() throws {
        let sqlite = try StoreBackend.sqlite.open(in: folder, clock: clock)
        let runIDs = try filled(sqlite)
        let postgres = try StoreBackend.postgres.open(in: folder, clock: clock)
        let counts = try StoreCopy.copy(from: sqlite, to: postgres)
        XCTAssertEqual(counts.map(\.table), StoreCopy.copiedTables)
        XCTAssertTrue(counts.allSatisfy { $0.rows > 0 }, "a row in every table: \(counts)")
        XCTAssertEqual(try answers(postgres, runIDs), try answers(sqlite, runIDs))
        XCTAssertEqual(try postgres.activeLeases(host: nil), [], "leases belong to live processes")
        XCTAssertNil(try postgres.controllerLock(), "so does the controller lock")

        let back = try StoreBackend.sqlite.open(in: folder, clock: clock)
        XCTAssertEqual(try StoreCopy.copy(from: postgres, to: back), counts)
        XCTAssertEqual(try answers(back, runIDs), try answers(sqlite, runIDs))

        // Keys go on after the copied ones on both, so the copy is a store to go on with.
        let newest = try sqlite.events(runID: runIDs[0], after: 0, layer: nil, limit: 1_000).last?.sequence ?? 0
        let sequences = try [sqlite, postgres, back].map { store in
            try store.appendEvent(.init(type: "note", payload: "{}", at: Date()), runID: runIDs[0])
        }
        XCTAssertEqual(Set(sequences).count, 1, "the same next sequence everywhere: \(sequences)")
        XCTAssertGreaterThan(sequences[0], newest)
        XCTAssertNotNil(
            try postgres.enqueue(
                QueueRequest(pipeline: "app-intents", source: .manual, requestedBy: "erin"), at: Date()
            ).queued)
    }

    func testATargetThatHoldsRowsIsRefusedAndLeftAsItWas() throws {
        let sqlite = try StoreBackend.sqlite.open(in: folder, clock: clock)
        _ = try filled(sqlite)
        let postgres = try StoreBackend.postgres.open(in: folder, clock: clock)
        try postgres.appendAudit(source: "chat", entry: "{}", at: StoreFixtures.epoch)
        XCTAssertThrowsError(try StoreCopy.copy(from: sqlite, to: postgres)) {
            XCTAssertTrue("\($0)".contains("already holds 1 rows in audit_log"), "\($0)")
        }
        XCTAssertEqual(try postgres.listRuns(RunFilter()), [])
        XCTAssertEqual(try postgres.auditEntries(source: nil, limit: 10).count, 1)
    }

    func testEveryTableOfTheSchemaIsCopiedOrBelongsToLiveProcesses() throws {
        let raw = try SQLiteDatabase(path: folder.appending("schema.db").path)
        _ = try SQLiteRunStore(location: folder.appending("schema.db"))
        let tables = try raw.query(SQLDialect.sqlite.tablesQuery) { $0.text(0) ?? "" }
        XCTAssertEqual(
            Set(tables), Set(StoreCopy.copiedTables + StoreCopy.processTables),
            "a table a migration adds must be copied by `pipe store migrate` (StoreCopy.copiedTables)")
    }
}
