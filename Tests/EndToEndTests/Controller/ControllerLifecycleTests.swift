import Foundation
import PipeTestSupport
import XCTest

/// The controller's life: one per store, SIGTERM with a run in progress, kill -9 and restart, SIGHUP.
final class ControllerLifecycleTests: ControllerTestCase {
    func testASecondControllerOnTheSameStoreRefusesNamingTheFirst() throws {
        let project = try controllerProject()
        try writeConfig("limits: {runs: 1}\n", in: project)
        let health = ["controller", "status", "--config", "controller.yml", "--health"]
        let unserved = try project.pipe(health)
        XCTAssertEqual(unserved.exitCode, 1, "no controller yet: \(unserved.combined)")
        XCTAssertEqual(unserved.stdout, "", "the health check prints nothing")
        let first = try startController(in: project)
        XCTAssertTrue(first.process.isRunning, output(of: first))
        let served = try project.pipe(health)
        XCTAssertEqual(served.exitCode, 0, served.combined)
        XCTAssertEqual(served.stdout, "")

        let second = try project.pipe(["controller", "--config", "controller.yml"])
        XCTAssertEqual(second.exitCode, 3, second.combined)
        XCTAssertTrue(
            second.stderr.contains("another controller already drives the queue of"), second.stderr)
        XCTAssertTrue(second.stderr.contains("pid \(first.pid) on"), second.stderr)
        XCTAssertTrue(second.stderr.contains("kill -TERM \(first.pid)"), second.stderr)
        XCTAssertTrue(first.process.isRunning, "the first controller goes on")

        let ended = stop(first)
        XCTAssertEqual(ended.exitCode, 0, ended.combined)
        XCTAssertTrue(ended.stdout.contains("lock released"), ended.stdout)
        XCTAssertEqual(try project.pipe(health).exitCode, 1, "the controller has stopped")
        // Once the first has stopped, a new one starts.
        let third = try startController(in: project)
        XCTAssertTrue(output(of: third).contains("started with"), output(of: third))
        XCTAssertEqual(stop(third).exitCode, 0)
    }

    func testSIGTERMLetsTheRunGoOnForTheGracePeriodThenCancelsItAndExitsZero() throws {
        let project = try controllerProject(testSeconds: 60)
        try writeConfig("grace-period: 2s\nlimits: {runs: 1}\n", in: project)
        let first = try enqueue(project)
        let second = try enqueue(project)
        let controller = try startController(in: project)
        let folder = waitUntilTestsRun(in: project, layer: "logic")
        XCTAssertEqual(folder?.lastPathComponent, first)
        defer { try? killHostProcesses(mentioning: first) }

        // The status shows the run where it is: host, simulator, layer, elapsed; the second one waits.
        let running = try XCTUnwrap((try status(project)["running"] as? [[String: Any]])?.first)
        XCTAssertEqual(running["runID"] as? String, first)
        XCTAssertEqual(running["host"] as? String, "mac-1")
        XCTAssertEqual((running["udid"] as? String)?.count, 36)
        XCTAssertEqual(running["layer"] as? String, "logic")
        XCTAssertGreaterThan(try XCTUnwrap(running["elapsedSeconds"] as? Double), 0)
        let text = try project.pipe(["controller", "status"]).stdout
        XCTAssertTrue(text.contains("controller: running, pid \(controller.pid) on"), text)
        XCTAssertTrue(text.contains("queued (1):") && text.contains(second), text)
        XCTAssertTrue(text.contains("running (1):") && text.contains("mac-1"), text)

        let signalled = Date()
        kill(controller.pid, SIGTERM)
        let ended = controller.wait(timeout: 30)
        let took = Date().timeIntervalSince(signalled)
        XCTAssertEqual(ended.exitCode, 0, ended.combined)
        XCTAssertGreaterThanOrEqual(took, 2, "the run had its grace period")
        XCTAssertLessThan(took, 20, "the run was cancelled, not waited for")
        XCTAssertTrue(ended.stdout.contains("SIGTERM received: taking no new runs"), ended.stdout)
        XCTAssertTrue(ended.stdout.contains("the grace period of 2 s is over: cancelling 1 running run"), ended.stdout)

        let all = try runs(project)
        XCTAssertEqual(run(first, in: all)?["status"] as? String, "cancelled", "\(all)")
        XCTAssertEqual(run(first, in: all)?["exitCode"] as? Int, 130)
        XCTAssertNil(run(second, in: all), "the second run was never started")
        let record = try self.record(ofRun: try XCTUnwrap(folder))
        XCTAssertEqual(layer("logic", in: record)?["outcome"] as? String, "cancelled")
        XCTAssertTrue(
            FileManager.default.fileExists(atPath: folder!.appendingPathComponent("logic/xcodebuild.log").path),
            "the log brought back is kept")
        // The remote test process was killed, as Ctrl-C does for `pipe run`.
        try waitUntil("the remote processes of the run are gone", timeout: 10) {
            try hostProcesses(mentioning: first).isEmpty
        }
        // The second one is still queued, for the next controller.
        let queued = try XCTUnwrap(try status(project)["queued"] as? [[String: Any]])
        XCTAssertEqual(queued.map { $0["runID"] as? String }, [second])
    }

    func testARunThatEndsWithinTheGracePeriodFinishesNormally() throws {
        let project = try controllerProject(testSeconds: 2)
        try writeConfig("grace-period: 60s\n", in: project)
        let queued = try enqueue(project)
        let controller = try startController(in: project)
        _ = waitUntilTestsRun(in: project, layer: "logic")
        kill(controller.pid, SIGTERM)
        let ended = controller.wait(timeout: 30)
        XCTAssertEqual(ended.exitCode, 0, ended.combined)
        XCTAssertFalse(ended.stdout.contains("cancelling"), ended.stdout)
        let all = try runs(project)
        XCTAssertEqual(run(queued, in: all)?["status"] as? String, "finished", "\(all)")
        XCTAssertEqual(run(queued, in: all)?["exitCode"] as? Int, 0)
        // Each of the run's lines names it, in `pipe run`'s plain style.
        XCTAssertTrue(ended.stdout.contains("\(queued) "), ended.stdout)
        XCTAssertTrue(ended.stdout.contains("exit 0: merge gate passed"), ended.stdout)
    }

    func testKillDashNineThenRestartRequeuesTheRunningRunOnceAndRunsNothingTwice() throws {
        let project = try controllerProject(testSeconds: 2)
        try writeConfig("limits: {runs: 1}\n", in: project)
        let first = try enqueue(project)
        let second = try enqueue(project)
        let controller = try startController(in: project)
        _ = waitUntilTestsRun(in: project, layer: "logic")
        kill(controller.pid, SIGKILL)
        controller.wait(timeout: 10)
        // A coordinator killed with -9 stops nothing on the host.
        try killHostProcesses(mentioning: first)

        let restarted = try startController(in: project)
        var all: [[String: Any]] = []
        try waitUntil("the requeued run and the second run have ended", timeout: 60) {
            all = try runs(project)
            return all.count == 3 && all.allSatisfy(isEnded)
        }
        let log = output(of: restarted)
        XCTAssertTrue(log.contains("the controller lock was held by"), log)
        XCTAssertEqual(run(first, in: all)?["status"] as? String, "interrupted", "\(all)")
        XCTAssertEqual(run(second, in: all)?["status"] as? String, "finished", "\(all)")
        let copy = try XCTUnwrap(all.first { ![first, second].contains($0["runID"] as? String) })
        XCTAssertEqual(copy["status"] as? String, "finished")
        let copyID = try XCTUnwrap(copy["runID"] as? String)
        XCTAssertTrue(log.contains("run \(first) (app-intents) was interrupted"), log)
        XCTAssertTrue(log.contains("queued again once as run \(copyID)"), log)
        // The requeued run went before the second: it had waited longer.
        let copyStart = try XCTUnwrap(copy["startedAt"] as? String)
        let secondStart = try XCTUnwrap(run(second, in: all)?["startedAt"] as? String)
        XCTAssertLessThan(copyStart, secondStart)
        XCTAssertEqual(stop(restarted).exitCode, 0)

        // Started once more, nothing runs again.
        let third = try startController(in: project)
        Thread.sleep(forTimeInterval: 1.5)
        XCTAssertEqual(try runs(project).count, 3)
        XCTAssertEqual(stop(third).exitCode, 0)
        XCTAssertEqual(try XCTUnwrap(try status(project)["queued"] as? [Any]).count, 0)
    }

    func testSIGHUPWithAnInvalidConfigKeepsTheOldOneAndAValidOneApplies() throws {
        let project = try controllerProject()
        let watching = "limits: {runs: 1}\nwatches:\n  main: {pipeline: app-intents, branches: [main], interval: 1s}\n"
        try writeConfig(watching, in: project)
        let controller = try startController(in: project)
        waitUntil("the watch has seen main", timeout: 20) {
            output(of: controller).contains("runs start with its next")
        }

        try writeConfig(
            "limits: {runs: 0}\nschedules:\n  nightly: {pipeline: app-intents, cron: \"0 25 * * *\"}\n", in: project)
        kill(controller.pid, SIGHUP)
        waitUntil("the reload was refused", timeout: 20) { output(of: controller).contains("is invalid now") }
        let refused = output(of: controller)
        XCTAssertTrue(
            refused.contains("keeping the config loaded before (0 schedules, 1 watch, at most 1 runs at once"), refused)
        XCTAssertTrue(refused.contains("controller.yml:1:16: error: limits.runs: must be at least 1"), refused)
        XCTAssertTrue(refused.contains("controller.yml:3:45: error: schedules.nightly.cron: 25 is outside"), refused)
        XCTAssertTrue(controller.process.isRunning)

        // The old config still holds: its watch runs a new commit.
        let first = try commitToMain(project)
        try waitUntil("the new commit has run", timeout: 60) {
            try runs(project).contains { $0["commit"] as? String == first && isEnded($0) }
        }

        // A valid config applies: without the watch, the next commit runs nothing.
        try writeConfig("limits: {runs: 2}\ngrace-period: 5s\n", in: project)
        kill(controller.pid, SIGHUP)
        waitUntil("the new config is applied", timeout: 20) { output(of: controller).contains("reloaded") }
        XCTAssertTrue(
            output(of: controller).contains(
                "reloaded controller.yml: 0 schedules, 0 watches, at most 2 runs at once, "
                    + "grace period 5 s"), output(of: controller))
        _ = try commitToMain(project)
        Thread.sleep(forTimeInterval: 2.5)
        XCTAssertEqual(try runs(project).count, 1)
        XCTAssertEqual(stop(controller).exitCode, 0)
    }

    /// Commits a change to the project's repository and returns the new head of main.
    private func commitToMain(_ project: PipeProject) throws -> String {
        try project.shell(
            "date +%s%N > NOTES && git add NOTES && git -c user.email=e2e@pipe.test -c user.name=e2e commit -qm change")
        return try CommandRunner.shell("git rev-parse main", currentDirectory: project.url).stdout
            .trimmingCharacters(in: .whitespacesAndNewlines)
    }

    func testCheckListsEveryProblemWithFileLineAndColumnAndStartRefusesTheSame() throws {
        let project = try controllerProject()
        try writeConfig(
            """
            grace-period: soon
            limits:
              runs: 0
            schedules:
              nightly:
                pipeline: app-intent
                cron: "0 2 * * 8"
                time-zone: Mars/Olympus
              hourly:
                pipeline: app-intents
                cron: "@hourly"
                missed: twice
            watches:
              main:
                pipeline: app-intents
                branchs: [main]
            """, in: project)
        let check = try project.pipe(["controller", "--check"])
        XCTAssertEqual(check.exitCode, 2, check.combined)
        let expected = [
            "controller.yml:1:15: error: grace-period: expected a duration",
            "controller.yml:3:9: error: limits.runs: must be at least 1, found 0",
            "controller.yml:6:15: error: schedules.nightly.pipeline: no pipeline 'app-intent' in pipelines/; did you mean 'app-intents'?",
            "controller.yml:7:20: error: schedules.nightly.cron: 8 is outside the day of week field's range 0-7",
            "controller.yml:8:16: error: schedules.nightly.time-zone: 'Mars/Olympus' is not a time zone name",
            "controller.yml:12:13: error: schedules.hourly.missed: 'twice' is not one of 'once' or 'skip'",
            "controller.yml:15:5: error: watches.main: missing required key 'branches'",
            "controller.yml:16:5: error: watches.main.branchs: unknown key; did you mean 'branches'?",
        ]
        for line in expected { XCTAssertTrue(check.stderr.contains(line), "missing: \(line)\n\(check.stderr)") }
        XCTAssertTrue(check.stderr.contains("has 8 problems"), check.stderr)

        let start = try project.pipe(["controller"])
        XCTAssertEqual(start.exitCode, 2)
        XCTAssertEqual(start.stderr, check.stderr, "starting refuses with the same problems")
        XCTAssertEqual(try runs(project).count, 0)

        try writeConfig(
            "schedules:\n  nightly: {pipeline: app-intents, cron: \"0 2 * * *\", time-zone: Europe/Paris}\n",
            in: project)
        let valid = try project.pipe(["controller", "--check"])
        XCTAssertEqual(valid.exitCode, 0, valid.combined)
        XCTAssertTrue(
            valid.stdout.contains("schedule nightly: app-intents 0 2 * * * (Europe/Paris), next"), valid.stdout)
    }
}
