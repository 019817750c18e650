import Foundation
import PipeTestSupport
import XCTest

/// A `pipe run` of its own on a PostgreSQL store keeps a heartbeat beside the controllers', so a controller on
/// another machine recovers its run when it dies there.
final class RunHeartbeatTests: ControllerTestCase {
    func testAPipeRunThatDiesOnAnotherMachineIsRecoveredByAControllerThroughItsHeartbeat() throws {
        let url = try PostgresServer.shared().createDatabase()
        let database = String(url.split(separator: "?")[0].split(separator: "/").last ?? "")
        // Long enough to be still running when the heartbeat goes stale (10 s) and the controller acts.
        let project = try controllerProject(capacity: 1, testSeconds: 40)
        try writeConfig("store: \(url)\n", in: project)
        let controller = try startController(in: project, environment: ["PIPE_MACHINE_NAME": "ci-east"])
        let pipeRun = try BackgroundPipe(
            ["run", "app-intents", "--store", url], in: project, environment: ["PIPE_MACHINE_NAME": "ci-west"])
        _ = waitUntilTestsRun(in: project, layer: "logic")
        let runID = try XCTUnwrap(try runs(project, store: url).first?["runID"] as? String)
        let listed = try project.pipe(["controller", "status", "--config", "controller.yml"])
        XCTAssertTrue(
            listed.stdout.contains("controllers: 1 serving"), "a `pipe run` is no controller: \(listed.stdout)")
        XCTAssertTrue(listed.stdout.contains("pipe run: 1 running on their own"), listed.stdout)
        XCTAssertTrue(listed.stdout.contains("pid \(pipeRun.pid) on ci-west"), listed.stdout)
        XCTAssertFalse(try hostProcesses(mentioning: runID).isEmpty, "the run's test runs on the host at the kill")

        kill(pipeRun.pid, SIGKILL)
        pipeRun.wait(timeout: 10)
        let killedAt = Date()
        var interrupted: [String: Any]?
        try waitUntil("the dead `pipe run`'s run is marked interrupted", timeout: 30) {
            interrupted = run(runID, in: try runs(project, store: url))
            return interrupted?["status"] as? String == "interrupted"
        }
        let waited = Date().timeIntervalSince(killedAt)
        XCTAssertGreaterThan(waited, 5, "not before its heartbeat had time to go stale")
        XCTAssertLessThan(waited, 20, "within the heartbeat timeout (10 s) and a few seconds")
        XCTAssertEqual(try hostProcesses(mentioning: runID), [], "the controller stopped its work on the host")
        let leases = try PostgresServer.shared().psql(
            "SELECT count(*) FROM host_leases WHERE run_id = '\(runID)'", database: database)
        XCTAssertEqual(leases, "0", "its host slot is free again")
        let after = try project.pipe(["controller", "status", "--config", "controller.yml"])
        XCTAssertFalse(after.stdout.contains("pipe run:"), "the dead `pipe run` left the list: \(after.stdout)")
        XCTAssertEqual(stop(controller).exitCode, 0)
    }

    func testAPipeRunThatEndsLeavesTheListAndAnotherMachineKnowsWhereItsFilesAre() throws {
        let url = try PostgresServer.shared().createDatabase()
        let database = String(url.split(separator: "?")[0].split(separator: "/").last ?? "")
        let project = try controllerProject(capacity: 1)
        let result = try project.pipe(
            ["run", "app-intents", "--store", url], environment: ["PIPE_MACHINE_NAME": "ci-west"])
        XCTAssertEqual(result.exitCode, 0, result.combined)
        let members = try PostgresServer.shared().psql("SELECT count(*) FROM controllers", database: database)
        XCTAssertEqual(members, "0", "nothing is left on the list")

        // Another machine: the same store, a project folder of its own without the run's files.
        let elsewhere = try makeProject()
        let shown = try elsewhere.pipe(["runs", "show", "last", "--store", url])
        XCTAssertEqual(shown.exitCode, 0, shown.combined)
        XCTAssertTrue(shown.stdout.contains("(on ci-west, not on this machine)"), shown.stdout)
        XCTAssertTrue(shown.stdout.contains("the run's files are kept on ci-west, which ran it"), shown.stdout)
    }
}
