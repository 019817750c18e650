import Foundation
import PipeCore
import PipeStore
import XCTest

/// Runs whose coordinator died: found from real processes, marked `interrupted`, their records kept whole.
final class InterruptionTests: StoreTestCase {
    /// The pid of a real process that has exited (and been reaped).
    private func deadPid() throws -> Int32 {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/bin/sh")
        process.arguments = ["-c", "exit 0"]
        try process.run()
        process.waitUntilExit()
        return process.processIdentifier
    }

    func testOwnerLivenessTellsLiveDeadReusedAndElsewhere() throws {
        let me = RunOwner.current()
        XCTAssertEqual(me.pid, getpid())
        XCTAssertNotNil(me.processStart, "Linux tells a process's start time")
        XCTAssertEqual(me.liveness(), .alive)
        XCTAssertEqual(RunOwner.process(getpid()), me)

        let dead = try deadPid()
        XCTAssertNil(RunOwner.process(dead))
        XCTAssertEqual(RunOwner(hostname: me.hostname, pid: dead, processStart: nil).liveness(), .dead)
        // This very pid, but a process that started at another time: the owner's pid was reused.
        XCTAssertEqual(RunOwner(hostname: me.hostname, pid: me.pid, processStart: "another-boot:42").liveness(), .dead)
        XCTAssertEqual(RunOwner(hostname: "elsewhere.example", pid: dead, processStart: nil).liveness(), .unknown)
    }

    func testDeadOwnersRunIsInterruptedAndLiveOrDistantOwnersAreLeftAlone() throws {
        let store = try openStore()
        let me = RunOwner.current()
        let deadRun = StoreFixtures.runID(30)
        let liveRun = StoreFixtures.runID(31)
        let distantRun = StoreFixtures.runID(32)
        let reusedRun = StoreFixtures.runID(33)
        let dead = try deadPid()
        try store.createRun(
            StoreFixtures.newRun(deadRun), owner: RunOwner(hostname: me.hostname, pid: dead, processStart: "b:1"))
        try store.createRun(StoreFixtures.newRun(liveRun), owner: me)
        try store.createRun(
            StoreFixtures.newRun(distantRun), owner: RunOwner(hostname: "ci-2.example", pid: dead, processStart: nil))
        try store.createRun(
            StoreFixtures.newRun(reusedRun), owner: RunOwner(hostname: me.hostname, pid: me.pid, processStart: "b:2"))

        let found = try store.markInterruptedRuns(at: Date())
        XCTAssertEqual(Set(found.map(\.runID)), [deadRun, reusedRun])
        XCTAssertEqual(try store.run(deadRun)?.record.status, .interrupted)
        XCTAssertEqual(try store.run(reusedRun)?.record.status, .interrupted)
        XCTAssertEqual(try store.run(liveRun)?.record.status, .running)
        XCTAssertEqual(try store.run(distantRun)?.record.status, .running)
        XCTAssertEqual(try store.markInterruptedRuns(at: Date()), [], "a run is marked once")

        // The live owner carries on undisturbed; the dead one's record is final.
        try store.finishLayer(runID: liveRun, layer: "unit", outcome: .passed, evidence: [], at: Date())
        XCTAssertThrowsError(
            try store.finishLayer(runID: deadRun, layer: "unit", outcome: .passed, evidence: [], at: Date())
        ) {
            XCTAssertEqual($0 as? StoreError, .runInterrupted(deadRun))
        }
    }

    func testCoordinatorKilledMidRunLeavesAConsistentRecordThatIsMarkedInterrupted() throws {
        let runID = StoreFixtures.runID(40)
        let ready = folder.appending("ready").path
        let worker = try StoreWorker.start(
            .init(kind: .hangInALayer, storePath: storeURL.path, runID: runID, readySignal: ready),
            output: folder.appending("worker.log"))
        let deadline = Date().addingTimeInterval(60)
        while !FileManager.default.fileExists(atPath: ready) && worker.isRunning && Date() < deadline { usleep(2_000) }
        XCTAssertTrue(
            worker.isRunning, (try? String(contentsOf: folder.appending("worker.log"), encoding: .utf8)) ?? "")
        let owner = try XCTUnwrap(RunOwner.process(worker.processIdentifier))
        usleep(200_000)
        XCTAssertEqual(kill(worker.processIdentifier, SIGKILL), 0)
        worker.waitUntilExit()
        XCTAssertEqual(worker.terminationReason, .uncaughtSignal)

        // A fresh process opens the store the killed one was writing: intact, and the run still says running.
        let store = try openStore()
        XCTAssertEqual(try rawDatabase().text("PRAGMA integrity_check"), "ok")
        let before = try XCTUnwrap(try store.run(runID))
        XCTAssertEqual(before.record.status, .running)
        XCTAssertEqual(before.owner, owner)
        let lastEvent = try XCTUnwrap(try store.events(runID: runID, after: 0, layer: nil, limit: 1_000_000).last)

        let found = try store.markInterruptedRuns(at: Date())
        XCTAssertEqual(found.map(\.runID), [runID])
        let interrupted = try XCTUnwrap(found.first)
        XCTAssertEqual(interrupted.owner, owner)
        XCTAssertEqual(interrupted.cancelledLayers, ["unit", "ui"])
        XCTAssertEqual(interrupted.hostName, "mac-1")
        XCTAssertEqual(interrupted.remoteRunFolder, "pipe-work/runs/\(runID)")
        XCTAssertEqual(interrupted.artifacts.map(\.path), ["artifacts/\(runID)/unit/xcodebuild.log"])
        XCTAssertEqual(interrupted.lastActivity, before.updatedAt)
        XCTAssertGreaterThanOrEqual(interrupted.lastActivity, lastEvent.at.addingTimeInterval(-0.001))

        let after = try XCTUnwrap(try store.run(runID))
        XCTAssertEqual(after.record.status, .interrupted)
        XCTAssertNotNil(after.interruptedAt)
        XCTAssertTrue(
            after.record.problem?.contains("the coordinator (\(owner.description)) stopped") ?? false,
            after.record.problem ?? "")
        let unit = after.record.layers[0]
        let ui = after.record.layers[1]
        XCTAssertEqual(unit.outcome, .cancelled)
        XCTAssertTrue(
            unit.evidence[0].hasPrefix(
                "interrupted: the coordinator (\(owner.description)) stopped while this layer was running"),
            unit.evidence[0])
        XCTAssertEqual(ui.outcome, .cancelled)
        XCTAssertTrue(ui.evidence[0].hasPrefix("not run: "), ui.evidence[0])
        XCTAssertEqual(unit.attempts.map(\.outcome), [.cancelled])
        XCTAssertEqual(unit.attempts[0].evidence, unit.evidence)
        XCTAssertNotNil(unit.attempts[0].finishedAt)
        XCTAssertGreaterThanOrEqual(unit.attempts[0].durationSeconds ?? -1, 0)
        XCTAssertEqual(
            unit.tests.map(\.identifier), ["UnitTests/testOne()"], "results recorded before the kill are kept")
        XCTAssertEqual(after.record.finishedAt, unit.attempts[0].finishedAt, "both end at the last sign of life")

        // Followers of the log learn what happened; the hosts' clean-up learns what to remove.
        let last = try XCTUnwrap(try store.events(runID: runID, after: lastEvent.sequence, layer: nil, limit: 10).last)
        XCTAssertEqual(last.type, "run-interrupted")
        XCTAssertTrue(last.payload.contains(#""cancelledLayers":["unit","ui"]"#), last.payload)
        XCTAssertEqual(
            try store.pendingRemoteCleanups(),
            [
                RemoteCleanup(
                    runID: runID, hostName: "mac-1", remoteRunFolder: "pipe-work/runs/\(runID)", status: .interrupted)
            ])
        try store.markRemoteFolderCleaned(runID: runID, at: Date())
        XCTAssertEqual(try store.pendingRemoteCleanups(), [])
    }
}
