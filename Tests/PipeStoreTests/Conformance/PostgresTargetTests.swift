import Foundation
import PipeStore
import PipeStorePostgres
import PipeTestSupport
import XCTest

/// What is refused before connecting (a password in the URL, text that is no URL), and what a user reads when the
/// server cannot be reached or the database is not a run store: the server and database named, never a password.
final class PostgresTargetTests: XCTestCase {
    func testAURLWithAPasswordIsRefusedNamingWhereItBelongs() {
        XCTAssertThrowsError(try PostgresTarget("postgres://ci:s3cret@db.example:6432/pipe?sslmode=verify-full")) {
            let message = "\($0)"
            XCTAssertTrue(message.contains("carries a password"), message)
            XCTAssertTrue(message.contains("~/.pgpass") && message.contains("PGPASSWORD"), message)
            XCTAssertTrue(message.contains("database pipe on host db.example port 6432 as user ci"), message)
            XCTAssertFalse(message.contains("s3cret"), "the password is never printed: \(message)")
        }
        XCTAssertThrowsError(try PostgresTarget("postgres://ci:s3cret@db.example:6432/pipe?bad-option=1")) {
            XCTAssertFalse("\($0)".contains("s3cret"), "nor when the URL does not parse: \($0)")
        }
    }

    func testAURLWithoutPasswordKeepsItsOptionsAndIsDescribed() throws {
        let target = try PostgresTarget("postgresql://ci@db.example/pipe?sslmode=verify-full&connect_timeout=5")
        XCTAssertEqual(target.connectionString, "postgresql://ci@db.example/pipe?sslmode=verify-full&connect_timeout=5")
        XCTAssertEqual(target.description, "PostgreSQL database pipe on host db.example port 5432 as user ci")
        XCTAssertThrowsError(try PostgresTarget("mysql://ci@db/pipe")) {
            XCTAssertTrue("\($0)".contains("is not a PostgreSQL URL"), "\($0)")
        }
        XCTAssertTrue(PostgresTarget.isPostgres("postgres://x"))
        XCTAssertFalse(PostgresTarget.isPostgres(".pipe/pipe.db"))
    }

    func testAServerThatCannotBeReachedIsNamedWithWhatToCheck() throws {
        let folder = try TemporaryDirectory(prefix: "pipe-pg-none")
        defer { folder.remove() }
        let target = try PostgresTarget("postgresql:///nowhere?host=\(folder.url.path)&user=pipe")
        XCTAssertThrowsError(try PostgresRunStore(target: target, reconnectSeconds: 0.3)) {
            let message = "\($0)"
            XCTAssertTrue(message.hasPrefix("cannot connect to the run store"), message)
            XCTAssertTrue(message.contains("database nowhere on host \(folder.url.path)"), message)
            XCTAssertTrue(message.contains("check that the server runs"), message)
        }
    }

    func testADatabaseOfAnotherProgramIsLeftUntouched() throws {
        let server = try PostgresServer.shared()
        let url = try server.createDatabase(prefix: "other_program")
        let name = String(url.split(separator: "?")[0].split(separator: "/").last ?? "")
        try server.psql("CREATE TABLE invoices (id int)", database: name)
        XCTAssertThrowsError(try PostgresRunStore(url: url)) {
            XCTAssertTrue("\($0)".contains("is not a Pipe run store"), "\($0)")
        }
        XCTAssertEqual(
            try server.psql(
                "SELECT count(*) FROM information_schema.tables WHERE table_schema = 'public'",
                database: name
            ).trimmingCharacters(in: .whitespacesAndNewlines), "1")
    }

    func testOpeningAgainFindsTheSchemaInPlace() throws {
        let url = try PostgresServer.shared().createDatabase()
        let first = try PostgresRunStore(url: url)
        XCTAssertEqual(try first.schemaVersion(), PostgresRunStore.supportedSchemaVersion)
        XCTAssertEqual(PostgresRunStore.supportedSchemaVersion, SQLiteRunStore.supportedSchemaVersion)
        try first.appendAudit(source: "chat", entry: "{}", at: Date())
        let second = try PostgresRunStore(url: url)
        XCTAssertEqual(try second.auditEntries(source: nil, limit: 10).count, 1)
    }
}
