import Foundation
import PipeBasics
import PipeCore
import PipeStore
import PipeStorePostgres
import PipeTestSupport
import XCTest

@testable import PipeCLI

/// `--store`, `PIPE_STORE` and the controller config's `store:` choose the run store; a `postgres://` URL is
/// PostgreSQL, anything else an SQLite file; the commands read the same runs from either.
final class StoreSelectionTests: XCTestCase {
    private var folder: TemporaryDirectory!

    override func setUpWithError() throws {
        folder = try TemporaryDirectory(prefix: "pipe-store-choice")
        try FileManager.default.createDirectory(
            at: folder.appending("pipelines"), withIntermediateDirectories: true)
    }

    override func tearDown() {
        folder?.remove()
    }

    private func pipe(_ arguments: [String], environment: [String: String] = [:]) -> (
        code: Int32, out: String, err: String
    ) {
        var out = ""
        var err = ""
        let code = PipeCommandLine.main(
            arguments + ["--project-dir", folder.url.path],
            environment: environment.merging(["CI": "true"]) { a, _ in a },
            console: Console(out: { out += $0 }, err: { err += $0 }))
        return (code, out, err)
    }

    func testAPathIsSQLiteAndAURLIsPostgreSQL() throws {
        XCTAssertEqual(
            try StoreLocation.parse("runs.db", relativeTo: folder.url), .sqlite(folder.appending("runs.db")))
        guard case .postgres(let target) = try StoreLocation.parse("postgres://ci@db/pipe", relativeTo: folder.url)
        else { return XCTFail("a postgres:// URL is PostgreSQL") }
        XCTAssertEqual(target.description, "PostgreSQL database pipe on host db port 5432 as user ci")
        XCTAssertThrowsError(try StoreLocation.parse("postgresql://ci:pw@db/pipe", relativeTo: folder.url))
    }

    func testRunsCommandsReadAPostgreSQLStoreNamedByFlagOrEnvironment() throws {
        let url = try PostgresServer.shared().createDatabase()
        let runID = RunID.generate(at: Date(timeIntervalSince1970: 1_795_000_000)).value
        let started = UTCTimestamp.iso8601(try XCTUnwrap(RunID(runID)?.startTime))
        var record = RunRecord(
            runID: runID, pipeline: "app-intents", pipelineFile: "pipelines/app-intents.yml", status: .finished,
            request: .init(
                pipeline: "app-intents", ref: "HEAD", workspace: "examples/reader-app", requestedBy: "alice",
                trigger: "cli"),
            startedAt: started, layers: [])
        record.finishedAt = started
        record.exitCode = 0
        try PostgresRunStore(url: url).createRun(record, owner: RunOwner(hostname: "ci-1", pid: 1, processStart: nil))

        let byFlag = pipe(["runs", "list", "--store", url])
        XCTAssertEqual(byFlag.code, 0, byFlag.err)
        XCTAssertTrue(byFlag.out.contains(runID), byFlag.out)
        let byEnvironment = pipe(["runs", "show", runID], environment: ["PIPE_STORE": url])
        XCTAssertEqual(byEnvironment.code, 0, byEnvironment.err)
        XCTAssertTrue(byEnvironment.out.contains("app-intents"), byEnvironment.out)
        let sqlite = pipe(["runs", "list"])
        XCTAssertEqual(sqlite.code, 0, sqlite.err)
        XCTAssertFalse(sqlite.out.contains(runID), "without a URL, the project's SQLite file: \(sqlite.out)")
        XCTAssertTrue(FileManager.default.fileExists(atPath: folder.appending(".pipe/pipe.db").path))
    }

    func testStoreMigrateCopiesTheProjectsStoreIntoAnEmptyDatabaseOnce() throws {
        let url = try PostgresServer.shared().createDatabase()
        let sqlite = try SQLiteRunStore(location: folder.appending(".pipe/pipe.db"))
        let runID = try XCTUnwrap(
            try sqlite.enqueue(
                QueueRequest(pipeline: "app-intents", source: .manual, requestedBy: "erin"), at: Date()
            ).queued?.runID)
        try sqlite.appendAudit(source: "chat", entry: "{}", at: Date())

        let copied = pipe(["store", "migrate", "--to", url])
        XCTAssertEqual(copied.code, 0, copied.err)
        XCTAssertTrue(
            copied.out.contains("run_queue") && copied.out.contains("every table's count matches"), copied.out)
        XCTAssertTrue(copied.out.contains("to PostgreSQL database pipe_test_"), copied.out)
        XCTAssertEqual(try PostgresRunStore(url: url).queuedRun(runID)?.request.requestedBy, "erin")

        let again = pipe(["store", "migrate", "--to", url])
        XCTAssertNotEqual(again.code, 0)
        XCTAssertTrue(again.err.contains("already holds 1 rows in run_queue"), again.err)
        let missing = pipe(["store", "migrate", "--from", folder.appending("none.db").path, "--to", "copy.db"])
        XCTAssertNotEqual(missing.code, 0)
        XCTAssertTrue(missing.err.contains("there is no run store at"), missing.err)
    }

    func testAPasswordInTheURLIsRefusedBeforeConnecting() {
        let result = pipe(["runs", "list", "--store", "postgres://ci:hunter2@127.0.0.1:1/pipe"])
        XCTAssertNotEqual(result.code, 0)
        XCTAssertTrue(result.err.contains("carries a password") && result.err.contains("~/.pgpass"), result.err)
        XCTAssertFalse(result.err.contains("hunter2"), result.err)
    }

    func testLibpqVariablesAreNotPassedToChildProcesses() {
        let passed = ChildEnvironment.withoutStoreCredentials([
            "PATH": "/usr/bin", "PGPASSWORD": "x", "PGPASSFILE": "/p", "PGHOST": "db", "PIPE_STORE": "postgres://db/p",
        ])
        XCTAssertEqual(passed, ["PATH": "/usr/bin", "PIPE_STORE": "postgres://db/p"])
    }
}
