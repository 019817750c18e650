import Foundation
import PipeTestSupport
import XCTest

/// Two controllers serving one PostgreSQL run store and one emulated host: every queued run is taken by exactly
/// one of them, and the host's capacity holds across both.
final class ControllerClusterTests: ControllerTestCase {
    func testTwoControllersShareOneQueueAndOneHostWithoutRunningAnythingTwice() throws {
        // One run at a time each: the host's two slots are used only when both controllers work.
        let (url, project, queued, first, second) = try twoControllers(queueing: 6, testSeconds: 1)
        XCTAssertTrue(output(of: second).contains("started with"), "a second controller joins: \(output(of: second))")
        var all: [[String: Any]] = []
        try waitUntil("every queued run has ended", timeout: 120) {
            all = try runs(project, store: url)
            return all.count == 6 && all.allSatisfy(isEnded)
        }
        XCTAssertEqual(all.compactMap { $0["runID"] as? String }.sorted(), queued.sorted(), "each queued run ran, once")
        XCTAssertTrue(all.allSatisfy { $0["status"] as? String == "finished" }, "\(all)")
        let spans = try all.map { run -> (String, String) in
            (try XCTUnwrap(run["startedAt"] as? String), try XCTUnwrap(run["finishedAt"] as? String))
        }
        let overlap = spans.map { span in spans.filter { $0.0 <= span.0 && span.0 < $0.1 }.count }.max() ?? 0
        XCTAssertLessThanOrEqual(overlap, 2, "never more runs at once than the host's 2 slots: \(spans)")
        let logs = [output(of: first), output(of: second)]
        for (index, log) in logs.enumerated() {
            XCTAssertTrue(queued.contains { log.contains($0) }, "controller \(index + 1) ran some of the runs:\n\(log)")
        }
        for runID in queued {
            XCTAssertEqual(
                logs.filter { $0.contains("run \(runID)") || $0.contains("\"runID\":\"\(runID)\"") }.count, 1,
                "run \(runID) was run by one controller")
        }
        let status = try project.pipe(["controller", "status", "--config", "controller.yml"])
        XCTAssertEqual(status.exitCode, 0, status.combined)
        XCTAssertTrue(status.stdout.contains("controllers: 2 serving this store"), status.stdout)
        XCTAssertTrue(
            status.stdout.contains("pid \(first.pid) on") && status.stdout.contains("pid \(second.pid) on"),
            status.stdout)
        XCTAssertEqual(stop(first).exitCode, 0)
        XCTAssertEqual(stop(second).exitCode, 0)
    }

    func testAControllerKilledMidRunHasItsRunInterruptedAndQueuedAgainByTheOther() throws {
        let url = try PostgresServer.shared().createDatabase()
        // A first test long enough to be still running on the host when the survivor finds the death.
        let project = try controllerProject(capacity: 2, testSeconds: 15)
        try writeConfig("store: \(url)\nlimits: {runs: 1}\n", in: project)
        let first = try startController(in: project)
        let runID = try enqueue(project, ["--store", url])
        _ = waitUntilTestsRun(in: project, layer: "logic")
        let second = try startController(in: project)
        // Whichever controller took the run is killed; the other must notice by itself, without a restart.
        let (victim, survivor) = output(of: first).contains(runID) ? (first, second) : (second, first)
        // Looked at before the kill: after it, the survivor may already be stopping them.
        XCTAssertFalse(try hostProcesses(mentioning: runID).isEmpty, "the run's test runs on the host at the kill")
        kill(victim.pid, SIGKILL)
        victim.wait(timeout: 10)
        // Its work on the Mac is stopped (by the survivor, or by whichever `pipe` command finds the death first)
        // before it is marked interrupted: by then the dead run's long test no longer runs.
        try waitUntil("the run is marked interrupted", timeout: 30) {
            run(runID, in: try runs(project, store: url))?["status"] as? String == "interrupted"
        }
        XCTAssertEqual(try hostProcesses(mentioning: runID), [], "nothing of the dead run runs on the host")
        let waited = try waitForTheCopy(of: runID, store: url, in: project, survivor: survivor)
        XCTAssertLessThan(waited, 10, "found within the recovery interval and a few seconds")
        XCTAssertEqual(stop(survivor).exitCode, 0)
    }

    func testAScheduleSlotFiresOnceAcrossThreeControllers() throws {
        let url = try PostgresServer.shared().createDatabase()
        let project = try controllerProject(capacity: 1, testSeconds: 1)
        try writeConfig(
            """
            store: \(url)
            schedules:
              often:
                pipeline: app-intents
                cron: "@every 1s"
                missed: skip
            """, in: project)
        let controllers = try (0..<3).map { _ in try startController(in: project) }
        let slotLines = { (log: String) in
            log.split(separator: "\n").compactMap { line -> String? in
                guard let range = line.range(of: "schedule often: slot ") else { return nil }
                return String(line[range.upperBound...].prefix(20))
            }
        }
        waitUntil("the schedule has fired six times", timeout: 30) {
            controllers.map { slotLines(output(of: $0)).count }.reduce(0, +) >= 6
        }
        let logs = controllers.map { stop($0).stdout }
        let slots = logs.flatMap(slotLines)
        XCTAssertEqual(Set(slots).count, slots.count, "no slot fired twice in the cluster: \(slots.sorted())")
        XCTAssertGreaterThanOrEqual(slots.count, 6)
        let queued = try XCTUnwrap(try status(project)["queued"] as? [[String: Any]]).count
        XCTAssertEqual(queued + (try runs(project, store: url)).count, slots.count, "one queued run per slot")
    }

    func testAControllerDeadOnAnotherMachineIsFoundByItsHeartbeat() throws {
        let url = try PostgresServer.shared().createDatabase()
        let project = try controllerProject(capacity: 2, testSeconds: 2)
        try writeConfig("store: \(url)\nlimits: {runs: 1}\n", in: project)
        // Two machines by name: neither can see the other's processes, only its heartbeat in the store.
        let first = try startController(in: project, environment: ["PIPE_MACHINE_NAME": "ci-east"])
        let runID = try enqueue(project, ["--store", url])
        _ = waitUntilTestsRun(in: project, layer: "logic")
        let second = try startController(in: project, environment: ["PIPE_MACHINE_NAME": "ci-west"])
        let (victim, survivor) = output(of: first).contains(runID) ? (first, second) : (second, first)
        let listed = try project.pipe(["controller", "status", "--config", "controller.yml"])
        XCTAssertTrue(listed.stdout.contains("on ci-east") && listed.stdout.contains("on ci-west"), listed.stdout)
        kill(victim.pid, SIGKILL)
        victim.wait(timeout: 10)
        try killHostProcesses(mentioning: runID)
        let waited = try waitForTheCopy(of: runID, store: url, in: project, survivor: survivor)
        XCTAssertGreaterThan(waited, 5, "not before the heartbeat had time to go stale")
        XCTAssertLessThan(waited, 20, "within the heartbeat timeout (10 s) and a few seconds")
        let after = try project.pipe(["controller", "status", "--config", "controller.yml"])
        XCTAssertTrue(after.stdout.contains("controllers: 1 serving"), "the dead one left the list: \(after.stdout)")
        XCTAssertEqual(stop(survivor).exitCode, 0)
    }

    /// Waits until `runID` (whose controller was just killed) is interrupted and its copy, queued by `survivor`,
    /// has finished; returns the seconds from now to the copy's start.
    private func waitForTheCopy(of runID: String, store url: String, in project: PipeProject, survivor: BackgroundPipe)
        throws -> Double
    {
        let killedAt = Date()
        var all: [[String: Any]] = []
        try waitUntil("the interrupted run is queued again and its copy has ended", timeout: 60) {
            all = try runs(project, store: url)
            return all.count == 2 && all.allSatisfy(isEnded)
        }
        XCTAssertEqual(run(runID, in: all)?["status"] as? String, "interrupted", "\(all)")
        let copy = try XCTUnwrap(all.first { $0["runID"] as? String != runID })
        XCTAssertEqual(copy["status"] as? String, "finished", "\(all)")
        let log = output(of: survivor)
        XCTAssertTrue(log.contains("queued again once as run \(try XCTUnwrap(copy["runID"] as? String))"), log)
        let started = try XCTUnwrap(copy["startedAt"] as? String)
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        let copyStart = try XCTUnwrap(formatter.date(from: started) ?? ISO8601DateFormatter().date(from: started))
        return copyStart.timeIntervalSince(killedAt)
    }

    func testAControllerTakenOffTheListStopsItsRuns() throws {
        let url = try PostgresServer.shared().createDatabase()
        let database = String(url.split(separator: "?")[0].split(separator: "/").last ?? "")
        let project = try controllerProject(capacity: 1, testSeconds: 60)
        try writeConfig("store: \(url)\nlimits: {runs: 1}\n", in: project)
        let controller = try startController(in: project, environment: ["PIPE_MACHINE_NAME": "ci-east"])
        let runID = try enqueue(project, ["--store", url])
        _ = waitUntilTestsRun(in: project, layer: "logic")
        defer { try? killHostProcesses(mentioning: runID) }
        // What the other controllers do to one whose heartbeat went stale: off the list, its runs given away.
        try PostgresServer.shared().psql(
            "DELETE FROM controllers WHERE owner_pid = \(controller.pid)", database: database)
        var all: [[String: Any]] = []
        try waitUntil("the fenced controller has stopped its run", timeout: 20) {
            all = try runs(project, store: url)
            return all.count == 1 && all.allSatisfy(isEnded)
        }
        XCTAssertEqual(run(runID, in: all)?["status"] as? String, "cancelled", "\(all)")
        let log = output(of: controller)
        XCTAssertTrue(log.contains("is no longer on the store's list of controllers"), log)
        let status = try project.pipe(["controller", "status", "--config", "controller.yml"])
        XCTAssertTrue(
            status.stdout.contains("controllers: 1 serving") && status.stdout.contains("on ci-east"), status.stdout)
        XCTAssertEqual(stop(controller).exitCode, 0)
    }

    func testAPostgreSQLRestartMidRunLosesAndDoublesNothing() throws {
        let (url, project, queued, first, second) = try twoControllers(queueing: 3, testSeconds: 3)
        _ = waitUntilTestsRun(in: project, layer: "logic")
        let server = try PostgresServer.shared()
        let before = try server.psql("SELECT pg_postmaster_start_time()")
        try server.restart()
        XCTAssertNotEqual(try server.psql("SELECT pg_postmaster_start_time()"), before, "the server restarted")
        var all: [[String: Any]] = []
        try waitUntil("every queued run has ended after the restart", timeout: 90) {
            all = try runs(project, store: url)
            return all.count >= 3 && all.allSatisfy(isEnded)
        }
        XCTAssertEqual(all.compactMap { $0["runID"] as? String }.sorted(), queued.sorted(), "none lost, none twice")
        XCTAssertTrue(all.allSatisfy { $0["status"] as? String == "finished" }, "\(all)")
        XCTAssertEqual(stop(first).exitCode, 0)
        XCTAssertEqual(stop(second).exitCode, 0)
    }

    /// A new PostgreSQL store, a host of capacity 2, `count` queued runs and two controllers of one run each.
    private func twoControllers(queueing count: Int, testSeconds: Double) throws -> (
        url: String, project: PipeProject, queued: [String], first: BackgroundPipe, second: BackgroundPipe
    ) {
        let url = try PostgresServer.shared().createDatabase()
        let project = try controllerProject(capacity: 2, testSeconds: testSeconds)
        try writeConfig("store: \(url)\nlimits: {runs: 1}\n", in: project)
        let queued = try (0..<count).map { _ in try enqueue(project, ["--store", url]) }
        return (url, project, queued, try startController(in: project), try startController(in: project))
    }
}
