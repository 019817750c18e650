import Foundation
import PipeCore
import PipeStore
import XCTest

/// Opening a store: a new file, an older schema, a newer one, and files that are not run stores.
final class SchemaMigrationTests: StoreTestCase {
    private let fixtures = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent(
        "Fixtures")

    func testNewFileGetsTheCurrentSchemaInWALMode() throws {
        let store = try openStore()
        XCTAssertEqual(try store.schemaVersion(), SQLiteRunStore.supportedSchemaVersion)
        XCTAssertEqual(SQLiteRunStore.supportedSchemaVersion, 14)
        let raw = try rawDatabase()
        XCTAssertEqual(try raw.text("PRAGMA journal_mode"), "wal")
        XCTAssertEqual(try raw.integer("PRAGMA application_id"), 0x5049_5045)
        let tables = Set(try raw.query("SELECT name FROM sqlite_schema WHERE type = 'table'") { $0.text(0) ?? "" })
        XCTAssertTrue(
            tables.isSuperset(of: [
                "runs", "layers", "attempts", "test_results", "signoffs", "artifacts", "events", "host_leases",
                "run_queue", "controller_lock", "schedule_state", "watch_heads", "audit_log", "forge_deliveries",
                "forge_outbox", "forge_objects", "forge_approvals",
            ]),
            "\(tables)")
    }

    func testReopeningAStoreChangesNothing() throws {
        let runID = StoreFixtures.runID(1)
        do {
            let store = try openStore()
            try store.createRun(StoreFixtures.newRun(runID), owner: StoreFixtures.owner())
        }
        let store = try openStore()
        XCTAssertEqual(try store.schemaVersion(), SQLiteRunStore.supportedSchemaVersion)
        XCTAssertEqual(try store.run(runID)?.record.layers.map(\.name), ["unit", "ui"])
    }

    func testTheCodeLevelIsStoredWhenTheCommitIsKnown() throws {
        let store = try openStore()
        let runID = StoreFixtures.runID(1)
        try store.createRun(StoreFixtures.newRun(runID), owner: StoreFixtures.owner())
        XCTAssertNil(try store.run(runID)?.record.code)
        let code = CodeTrust(level: .release, reason: "commit 0123456789ab is reachable from refs/heads/main")
        try store.updateRun(runID, RunUpdate(commit: String(repeating: "0", count: 40), code: code))
        try store.updateRun(runID, RunUpdate(status: .finished))
        XCTAssertEqual(try store.run(runID)?.record.code, code, "a later update without it keeps it")
    }

    func testVersion1StoreIsMigratedKeepingItsRuns() throws {
        let v1 = folder.appending("v1.db")
        let raw = try SQLiteDatabase(path: v1.path)
        try raw.executeScript(String(contentsOf: fixtures.appendingPathComponent("schema-v1.sql"), encoding: .utf8))
        try raw.executeScript(String(contentsOf: fixtures.appendingPathComponent("v1-runs.sql"), encoding: .utf8))
        raw.close()
        XCTAssertEqual(try SQLiteDatabase(path: v1.path).integer("PRAGMA user_version"), 1)

        let store = try SQLiteRunStore(location: v1)
        XCTAssertEqual(try store.schemaVersion(), SQLiteRunStore.supportedSchemaVersion)

        // Everything version 1 held reads back through the current API.
        let finished = try XCTUnwrap(try store.run("20261118-100000-1a2b"))
        XCTAssertEqual(finished.record.status, .finished)
        XCTAssertEqual(finished.record.commit, "0123456789abcdef0123456789abcdef01234567")
        XCTAssertEqual(finished.record.request.requestedBy, "bob")
        XCTAssertEqual(finished.record.request.reason, "nightly")
        XCTAssertEqual(finished.record.host?.fingerprint, "SHA256:abc")
        XCTAssertEqual(finished.record.durationSeconds, 300.25)
        XCTAssertNil(finished.owner, "version 1 did not record owners")
        XCTAssertNil(finished.record.code, "runs before version 6 have no recorded code level")
        let unit = try XCTUnwrap(finished.record.layers.first)
        XCTAssertEqual(unit.outcome, .passed)
        XCTAssertEqual(unit.attempts.map(\.outcome), [.infrastructure, .passed])
        XCTAssertEqual(unit.attempts.map(\.exit), ["lost", "0"])
        XCTAssertEqual(unit.attempts[1].facts, ["processGroup": "4242"])
        XCTAssertEqual(
            unit.tests.map(\.identifier),
            ["ReadingIDTests/testNormalizesSpaces()", "ReadingIDTests/testRejectsEmpty()"])
        XCTAssertEqual(unit.attempts[1].artifacts.map(\.bytes), [2, 81920])
        XCTAssertEqual(try store.listRuns(RunFilter()).map(\.runID), ["20261118-110000-3c4d", "20261118-100000-1a2b"])

        // What version 2 added works on the old runs.
        try store.appendEvent(
            .init(type: "note", payload: #"{"text":"after the upgrade"}"#), runID: "20261118-100000-1a2b")
        XCTAssertEqual(try store.events(runID: "20261118-100000-1a2b", after: 0, layer: nil, limit: 10).count, 1)
        XCTAssertEqual(
            try store.requestCancellation(
                runID: "20261118-110000-3c4d", reason: "stop", requestedBy: "dan", at: Date()),
            .requested)
        // A running run of version 1 has no owner to judge: it is left alone, not guessed dead.
        XCTAssertEqual(try store.markInterruptedRuns(at: Date()) { _ in .dead }, [])

        // The upgraded file has exactly the schema a new file gets, and its references all hold.
        _ = try openStore()
        XCTAssertEqual(try SQLiteDatabase(path: v1.path).first("PRAGMA foreign_key_check") { $0.text(0) }, nil)
        XCTAssertEqual(try schemaShape(v1.path), try schemaShape(storeURL.path))
    }

    func testNewerSchemaIsRefusedAndLeftUntouched() throws {
        let runID = StoreFixtures.runID(2)
        do {
            let store = try openStore()
            try store.createRun(StoreFixtures.newRun(runID), owner: StoreFixtures.owner())
        }
        let raw = try rawDatabase()
        let newer = SQLiteRunStore.supportedSchemaVersion + 1
        try raw.execute("PRAGMA user_version = \(newer)")
        raw.close()
        let before = try Data(contentsOf: storeURL)

        XCTAssertThrowsError(try openStore()) { error in
            XCTAssertEqual(
                error as? StoreError,
                .schemaTooNew(path: storeURL.path, found: newer, supported: SQLiteRunStore.supportedSchemaVersion))
            let message = "\(error)"
            XCTAssertTrue(message.contains("schema version \(newer)"), message)
            XCTAssertTrue(message.contains("up to \(SQLiteRunStore.supportedSchemaVersion)"), message)
            XCTAssertTrue(message.contains("newer Pipe"), message)
            XCTAssertTrue(message.contains(storeURL.path), message)
        }
        XCTAssertEqual(try Data(contentsOf: storeURL), before)
        XCTAssertEqual(try rawDatabase().integer("PRAGMA user_version"), Int64(newer))
    }

    func testDatabaseOfAnotherProgramIsRefusedAndLeftUntouched() throws {
        let other = folder.appending("other.db")
        let raw = try SQLiteDatabase(path: other.path)
        try raw.executeScript("CREATE TABLE notes (body TEXT); INSERT INTO notes VALUES ('keep me');")
        raw.close()
        let before = try Data(contentsOf: other)

        XCTAssertThrowsError(try SQLiteRunStore(location: other)) { error in
            guard case .notARunStore(let path, let reason)? = error as? StoreError else {
                return XCTFail("expected notARunStore, got \(error)")
            }
            XCTAssertEqual(path, other.path)
            XCTAssertTrue(reason.contains("another program"), reason)
        }
        XCTAssertEqual(try Data(contentsOf: other), before)
        XCTAssertEqual(try SQLiteDatabase(path: other.path).text("PRAGMA journal_mode"), "delete")
    }

    func testFileThatIsNotSQLiteIsRefused() throws {
        let text = folder.appending("notes.txt")
        try Data(String(repeating: "not a database\n", count: 100).utf8).write(to: text)
        XCTAssertThrowsError(try SQLiteRunStore(location: text)) { error in
            XCTAssertEqual(
                error as? StoreError, .notARunStore(path: text.path, reason: "it is not an SQLite database"))
            XCTAssertTrue("\(error)".contains("move this file away"), "\(error)")
        }
    }

    /// Tables with their columns, indexes with their columns, and triggers: what must be equal between an
    /// upgraded store and a new one (column order may differ: `ALTER TABLE` appends).
    private func schemaShape(_ path: String) throws -> [String] {
        let database = try SQLiteDatabase(path: path)
        let objects = try database.query(
            "SELECT type, name, tbl_name FROM sqlite_schema WHERE name NOT LIKE 'sqlite_%' ORDER BY name"
        ) { (type: $0.text(0) ?? "", name: $0.text(1) ?? "", table: $0.text(2) ?? "") }
        var shape: [String] = []
        for object in objects {
            switch object.type {
            case "table":
                let columns = try database.query(
                    "SELECT name, type, \"notnull\", dflt_value, pk FROM pragma_table_info(?)", [object.name]
                ) { "\($0.text(0) ?? "") \($0.text(1) ?? "") \($0.int(2) ?? 0) \($0.text(3) ?? "-") \($0.int(4) ?? 0)" }
                shape += columns.sorted().map { "table \(object.name): \($0)" }
            case "index":
                let columns = try database.query("SELECT name FROM pragma_index_info(?) ORDER BY seqno", [object.name])
                {
                    $0.text(0) ?? ""
                }
                shape.append("index \(object.name) on \(object.table)(\(columns.joined(separator: ",")))")
            default:
                shape.append("\(object.type) \(object.name) on \(object.table)")
            }
        }
        return shape
    }
}
