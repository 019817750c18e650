import Foundation
import PipeTestSupport
import XCTest

/// The controller keeps a run's SSH session logged in for the next run to the same host (`session-idle`), and
/// closes it when it has waited too long, when the host dropped it, when its key is no longer trusted, and when the
/// controller stops. Every reuse is proven from the host's side: sshd's log names each connection by its client port,
/// for the login ("Accepted publickey … port P") and for every command ("Starting session: … port P").
final class ControllerSessionReuseTests: ControllerTestCase {
    func testTwoRunsInARowRunOverOneConnectionThatClosesWhenTheControllerStops() throws {
        let (project, controller, first) = try controllerAfterOneRun(sessionIdle: "60s")
        let commandsOfTheFirst = commandConnections(host.sshdLog()).count
        let second = try runToTheEnd(project, by: controller)

        let logins = connections(accepted: host.sshdLog())
        XCTAssertEqual(logins.count, 1, "one login for both runs:\n\(host.sshdLog())")
        let commands = commandConnections(host.sshdLog())
        XCTAssertGreaterThan(commandsOfTheFirst, 0)
        XCTAssertGreaterThan(commands.count, commandsOfTheFirst, "the second run ran commands too")
        XCTAssertEqual(Set(commands), Set(logins), "every command of both runs came over that connection")
        XCTAssertEqual(try sshdConnections.count(), 1, "the connection still waits for the next run")
        let log = output(of: controller)
        XCTAssertFalse(lines(of: first, in: log).contains { $0.contains("reusing the SSH session") }, log)
        assertLine(of: second, in: controller, with: "reusing the SSH session to mac-1 opened")
        assertLine(of: second, in: controller, with: "host mac-1 (", "verified")

        XCTAssertEqual(stop(controller).exitCode, 0)
        waitUntil("sshd saw the controller close the session", timeout: 10) {
            host.sshdLog().contains("Pipe: the controller stopped")
        }
        XCTAssertEqual(try sshdConnections.count(), 0)
    }

    func testAConnectionWhoseCommandsGetADeveloperDirGoesBackToo() throws {
        let xcode154 = "/Applications/Xcode-15.4.app/Contents/Developer"
        var config = try host.readConfig()
        config["otherXcodes"] = [xcode154: ["version": "15.4", "build": "15F31d"]]
        try host.writeConfig(config)
        // The one-layer pipeline, on hosts whose Xcode 15.4 is at `xcode154` (read from the project folder).
        let project = try controllerProject()
        let pipelineFile = project.url.appendingPathComponent("pipelines/app-intents.yml")
        try String(contentsOf: pipelineFile, encoding: .utf8)
            .replacingOccurrences(of: "simulator:", with: "host:\n  labels: { xcode: \"15.4\" }\nsimulator:")
            .write(to: pipelineFile, atomically: true, encoding: .utf8)
        try project.writeHostsFile(host.hostsFileEntry() + "    xcodes: { \"15.4\": \(xcode154) }\n")
        try writeConfig("session-idle: 60s\n", in: project)
        let controller = try startController(in: project)
        _ = try runToTheEnd(project, by: controller)
        let second = try runToTheEnd(project, by: controller)
        XCTAssertEqual(
            try project.lastRecord()["xcode"] as? String, "Xcode 15.4 (15F31d) at \(xcode154)",
            "its commands ran under the wrapper that exports DEVELOPER_DIR")
        assertLine(of: second, in: controller, with: "reusing the SSH session to mac-1 opened")
        XCTAssertEqual(connections(accepted: host.sshdLog()).count, 1)
        XCTAssertEqual(stop(controller).exitCode, 0)
    }

    func testASessionIdleForTheLimitIsClosedWithoutAnotherRun() throws {
        let (project, controller, _) = try controllerAfterOneRun(sessionIdle: "2s")
        let ended = Date()
        XCTAssertEqual(try sshdConnections.count(), 1)
        waitUntil("sshd saw the idle session closed", timeout: 15) {
            host.sshdLog().contains("Pipe: idle for 2.0 s")
        }
        XCTAssertGreaterThanOrEqual(Date().timeIntervalSince(ended), 1.5, "not before the limit")
        waitUntil("the session's sshd process is gone", timeout: 10) { (try? sshdConnections.count()) == 0 }

        // The next run connects anew.
        let next = try runToTheEnd(project, by: controller)
        XCTAssertEqual(connections(accepted: host.sshdLog()).count, 2)
        XCTAssertFalse(lines(of: next, in: output(of: controller)).contains { $0.contains("reusing") })
        XCTAssertEqual(stop(controller).exitCode, 0)
    }

    func testASessionTheHostDroppedIsNotReusedAndTheNextRunStillPasses() throws {
        let (project, controller, _) = try controllerAfterOneRun(sessionIdle: "60s")
        try dropConnections()
        waitUntil("the dropped connection is gone on the host", timeout: 10) { (try? sshdConnections.count()) == 0 }

        let next = try runToTheEnd(project, by: controller)
        let record = try XCTUnwrap(run(next, in: try runs(project)))
        XCTAssertEqual(record["exitCode"] as? Int, 0, "\(record)")
        assertLine(of: next, in: controller, with: "not reusing the SSH session to mac-1", "the host sent something")
        XCTAssertEqual(connections(accepted: host.sshdLog()).count, 2, "the second run logged in anew")
        XCTAssertEqual(stop(controller).exitCode, 0)
    }

    func testAHostKeyNoLongerTrustedStopsReuseAtOnce() throws {
        let (project, controller, _) = try controllerAfterOneRun(sessionIdle: "60s")

        // The known_hosts file now records another key for the host: the waiting session, logged in under the old
        // one, is not used, and the new connection is refused before logging in.
        let original = try String(contentsOf: host.knownHostsFile, encoding: .utf8)
        defer { try? original.write(to: host.knownHostsFile, atomically: true, encoding: .utf8) }
        let otherKey = try TemporaryDirectory(prefix: "pipe-e2e-other-key")
        defer { otherKey.remove() }
        let keyFile = otherKey.url.appendingPathComponent("key").path
        _ = try CommandRunner.shell("ssh-keygen -q -t ed25519 -N '' -f \(keyFile)")
        let publicKey = try String(contentsOfFile: keyFile + ".pub", encoding: .utf8).split(separator: " ").prefix(2)
        try "[127.0.0.1]:\(host.port) \(publicKey.joined(separator: " "))\n".write(
            to: host.knownHostsFile, atomically: true, encoding: .utf8)

        let refused = try runToTheEnd(project, by: controller)
        let record = try XCTUnwrap(run(refused, in: try runs(project)))
        XCTAssertEqual(record["exitCode"] as? Int, 3, "\(record)")
        assertLine(
            of: refused, in: controller, with: "not reusing the SSH session to mac-1", "no longer trusts its host key")
        XCTAssertTrue(
            output(of: controller).contains("REMOTE HOST IDENTIFICATION HAS CHANGED"), output(of: controller))
        XCTAssertEqual(connections(accepted: host.sshdLog()).count, 1, "no second login")
        XCTAssertEqual(stop(controller).exitCode, 0)
    }

    func testACancelledRunGivesItsSessionToNoOne() throws {
        let project = try controllerProject(testSeconds: 30)
        try writeConfig("session-idle: 60s\n", in: project)
        let controller = try startController(in: project)
        let cancelled = try enqueue(project)
        waitUntilTestsRun(in: project, layer: "logic")
        let cancel = try project.pipe(["runs", "cancel", cancelled, "--reason", "wrong branch"])
        XCTAssertEqual(cancel.exitCode, 0, cancel.combined)
        waitUntil("run \(cancelled) has ended", timeout: 60) {
            output(of: controller).contains("run \(cancelled) of app-intents ended cancelled")
        }
        // It may have stopped in the middle of a command: its connection closes rather than wait for another run.
        waitUntil("the cancelled run's connection is closed", timeout: 10) { (try? sshdConnections.count()) == 0 }
        XCTAssertEqual(connections(accepted: host.sshdLog()).count, 1)
        XCTAssertEqual(stop(controller).exitCode, 0)
    }

    func testSessionIdleZeroClosesEachSessionWhenItsRunEnds() throws {
        let (project, controller, first) = try controllerAfterOneRun(sessionIdle: "0")
        waitUntil("the first run's connection is closed", timeout: 10) { (try? sshdConnections.count()) == 0 }
        let second = try runToTheEnd(project, by: controller)
        waitUntil("the second run's connection is closed", timeout: 10) { (try? sshdConnections.count()) == 0 }

        XCTAssertEqual(connections(accepted: host.sshdLog()).count, 2, "a login per run")
        let log = output(of: controller)
        XCTAssertFalse((lines(of: first, in: log) + lines(of: second, in: log)).contains { $0.contains("reusing") })
        XCTAssertTrue(log.contains("SSH sessions closed after each run"), log)
        XCTAssertEqual(stop(controller).exitCode, 0)
    }

    func testSIGHUPAppliesANewLimitToTheWaitingSessions() throws {
        let (project, controller, _) = try controllerAfterOneRun(sessionIdle: "10m")
        XCTAssertEqual(try sshdConnections.count(), 1)

        try writeConfig("session-idle: 0\n", in: project)
        kill(controller.pid, SIGHUP)
        waitUntil("sshd saw the waiting session closed", timeout: 15) {
            host.sshdLog().contains("Pipe: session-idle is 0")
        }
        XCTAssertTrue(output(of: controller).contains("SSH sessions closed after each run"), output(of: controller))
        XCTAssertEqual(stop(controller).exitCode, 0)
    }

    // MARK: - Helpers

    /// A project on the emulated host and its controller with `session-idle: <sessionIdle>`, after one run.
    private func controllerAfterOneRun(sessionIdle: String, file: StaticString = #filePath, line: UInt = #line) throws
        -> (project: PipeProject, controller: BackgroundPipe, run: String)
    {
        let project = try controllerProject()
        try writeConfig("session-idle: \(sessionIdle)\n", in: project)
        let controller = try startController(in: project, file: file, line: line)
        return (project, controller, try runToTheEnd(project, by: controller, file: file, line: line))
    }

    /// Asserts that one line of `runID`'s output has each of `parts`.
    private func assertLine(
        of runID: String, in controller: BackgroundPipe, with parts: String..., file: StaticString = #filePath,
        line: UInt = #line
    ) {
        let log = output(of: controller)
        XCTAssertTrue(
            lines(of: runID, in: log).contains { line in parts.allSatisfy { line.contains($0) } },
            "no line of run \(runID) says \(parts):\n\(log)", file: file, line: line)
    }

    /// Queues a run and waits until the controller says it ended, which it does once the engine gave its
    /// connections back; returns its id.
    private func runToTheEnd(
        _ project: PipeProject, by controller: BackgroundPipe, file: StaticString = #filePath, line: UInt = #line
    ) throws -> String {
        let runID = try enqueue(project, file: file, line: line)
        waitUntil("run \(runID) has ended", timeout: 60, file: file, line: line) {
            output(of: controller).contains("run \(runID) of app-intents ended")
        }
        return runID
    }

    /// The client ports of the logins sshd accepted.
    private func connections(accepted log: String) -> [String] {
        ports(in: log, of: "Accepted publickey for ")
    }

    /// The client ports of the connections each command came over.
    private func commandConnections(_ log: String) -> [String] {
        ports(in: log, of: "Starting session: command for ")
    }

    private func ports(in log: String, of prefix: String) -> [String] {
        // sshd ends its lines with "\r\n", one Character.
        log.split(whereSeparator: \.isNewline).compactMap { line -> String? in
            guard line.contains(prefix), let range = line.range(of: " port ") else { return nil }
            return String(line[range.upperBound...].prefix { $0.isNumber })
        }
    }

    /// The controller's output lines of one run.
    private func lines(of runID: String, in log: String) -> [Substring] {
        log.split(separator: "\n").filter { $0.contains(runID) }
    }
}
