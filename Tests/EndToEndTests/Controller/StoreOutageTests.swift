import Foundation
import PipeTestSupport
import XCTest

/// A PostgreSQL store that stays away longer than a request waits: the run cannot record what it does, so it stops
/// its work on the host and ends `interrupted`, and says so in the store once the store is back.
final class StoreOutageTests: ControllerTestCase {
    func testARunWhoseStoreStaysAwayStopsItsWorkAndEndsInterruptedRecordedOnceTheStoreIsBack() throws {
        let server = try PostgresServer.shared()
        let url = try server.createDatabase()
        let project = try controllerProject(capacity: 1, testSeconds: 60)
        let pipeRun = try BackgroundPipe(
            ["run", "app-intents", "--store", url], in: project, environment: ["PIPE_STORE_RETRY_SECONDS": "3"])
        let runFolder = try XCTUnwrap(waitUntilTestsRun(in: project, layer: "logic"))
        let runID = runFolder.lastPathComponent
        XCTAssertFalse(try hostProcesses(mentioning: runID).isEmpty, "the run's test runs on the host")

        try server.stop()
        var stopped = true
        defer { if stopped { try? server.start() } }
        // Its test would go on for a minute: what ends it is the store's retry time (3 s) and a poll.
        try waitUntil("the run has given the store up and stopped its work on the host", timeout: 30) {
            let gone = try hostProcesses(mentioning: runID).isEmpty
            return gone && output(of: pipeRun).contains("the run store could not be reached")
        }
        let shown = output(of: pipeRun)
        XCTAssertTrue(shown.contains("it ends interrupted, and its record stays in artifacts/\(runID)"), shown)
        try server.start()
        stopped = false

        let ended = pipeRun.wait(timeout: 60)
        let log = output(of: pipeRun)
        XCTAssertEqual(ended.exitCode, 3, "an interruption is an environment failure, not a cancellation:\n\(log)")
        XCTAssertTrue(log.contains("the run store is back: run \(runID)'s ending is recorded there"), log)
        let stored = try XCTUnwrap(run(runID, in: try runs(project, store: url)), "the run is in the store")
        XCTAssertEqual(stored["status"] as? String, "interrupted", "\(stored)")
        XCTAssertTrue(
            (stored["problem"] as? String ?? "").contains("the run store could not be reached"), "\(stored)")
        let summary =
            try JSONSerialization.jsonObject(
                with: Data(contentsOf: runFolder.appendingPathComponent("summary.json"))) as? [String: Any]
        XCTAssertEqual(summary?["status"] as? String, "interrupted", "the record on disk says so too")
    }
}
