import Foundation
import PipeTestSupport
import XCTest

/// `pipe runs logs --follow`, `pipe runs cancel` and `pipe runs prune` from a second process while a `pipe run`
/// is in progress: the two processes share nothing but the SQLite run store.
final class RunsLiveTests: EmulatedHostTestCase {
    func testLogsFollowFromAnotherProcessSeesOutputArriveAndExitsWhenTheRunEnds() throws {
        let project = try makeProject()
        // A pause in the middle of the logic layer: output before it, and more after it.
        try makeFirstTest(of: "ReadingIDTests", take: 3, in: project)
        let run = try BackgroundPipe(["run", "app-intents"], in: project)
        let folder = try XCTUnwrap(waitUntilTestsRun(in: project, layer: "logic"))
        let runID = folder.lastPathComponent

        let follower = try BackgroundPipe(["runs", "logs", runID, "--follow"], in: project)
        let runResult = run.wait()
        let runEnded = Date()
        XCTAssertEqual(runResult.exitCode, 0, runResult.combined)
        let followed = follower.wait(timeout: 15)
        XCTAssertEqual(followed.exitCode, 0, followed.combined)

        // Everything the layers printed, in order, exactly as their logs hold it.
        let logicLog = try String(contentsOf: folder.appendingPathComponent("logic/xcodebuild.log"), encoding: .utf8)
        let intentLog = try String(contentsOf: folder.appendingPathComponent("intent/xcodebuild.log"), encoding: .utf8)
        // The build logic and intent share is run, and shown, by logic.
        let buildLog = try String(
            contentsOf: folder.appendingPathComponent("build-for-testing/logic+intent/xcodebuild.log"), encoding: .utf8)
        XCTAssertEqual(followed.stdout, buildLog + logicLog + intentLog)
        XCTAssertTrue(followed.stderr.contains("run \(runID) finished, exit 0"), followed.stderr)

        // It arrived while the run went on: the suite's start before the 3-second test ended, the verdict after.
        let chunks = follower.chunks()
        let started = try XCTUnwrap(chunks.first { $0.text.contains("Test Suite 'Selected tests' started") })
        let succeeded = try XCTUnwrap(chunks.first { $0.text.contains("** TEST EXECUTE SUCCEEDED **") })
        XCTAssertGreaterThan(succeeded.at.timeIntervalSince(started.at), 1.5, "output was printed as it arrived")
        XCTAssertLessThan(started.at, runEnded)
    }

    func testCancelFromAnotherProcessStopsAHangingRunKeepsArtifactsAndLeavesNothingOnTheHost() throws {
        let project = try makeProject()
        try makeFirstTest(of: "ReadingIDTests", take: 600, in: project)
        let run = try BackgroundPipe(["run", "app-intents"], in: project)
        let folder = try XCTUnwrap(waitUntilTestsRun(in: project, layer: "logic"))
        let runID = folder.lastPathComponent

        // Ctrl-C in a terminal that follows the run stops the following, not the run.
        let follower = try BackgroundPipe(["runs", "logs", "last", "--follow"], in: project)
        waitUntil("the follower prints the running layer's output") {
            follower.chunks().contains { $0.text.contains("Test Suite") }
        }
        kill(follower.pid, SIGINT)
        let followed = follower.wait(timeout: 10)
        XCTAssertEqual(followed.exitCode, 130, followed.combined)
        XCTAssertTrue(followed.stderr.contains("the run itself goes on"), followed.stderr)
        let listed = try XCTUnwrap(try json(project, ["runs", "list"]) as? [[String: Any]])
        XCTAssertEqual(listed.first?["status"] as? String, "running")
        XCTAssertEqual(listed.first?["cancellationRequested"] as? Bool, false)

        let cancelStarted = Date()
        let cancel = try project.pipe(["runs", "cancel", String(runID.prefix(18)), "--reason", "wrong branch"])
        XCTAssertEqual(cancel.exitCode, 0, cancel.combined)
        XCTAssertTrue(cancel.stdout.contains("run \(runID): cancellation requested"), cancel.stdout)
        XCTAssertTrue(cancel.stdout.contains("run \(runID) cancelled after"), cancel.stdout)
        XCTAssertLessThan(Date().timeIntervalSince(cancelStarted), 20)

        let runResult = run.wait(timeout: 30)
        XCTAssertEqual(runResult.exitCode, 130, runResult.combined)

        let record = try record(ofRun: folder)
        XCTAssertEqual(record["status"] as? String, "cancelled")
        XCTAssertEqual(record["exitCode"] as? Int, 130)
        let logic = try XCTUnwrap(layer("logic", in: record))
        XCTAssertEqual(logic["outcome"] as? String, "cancelled")
        let evidence = (logic["evidence"] as? [String] ?? []).joined(separator: "\n")
        XCTAssertTrue(evidence.contains("cancelled by") && evidence.contains("wrong branch"), evidence)
        XCTAssertEqual(layer("intent", in: record)?["outcome"] as? String, "cancelled")
        // Artifacts kept, and recorded in the store.
        XCTAssertEqual(
            try String(contentsOf: folder.appendingPathComponent("logic/exit-code"), encoding: .utf8), "cancelled\n")
        let log = try String(contentsOf: folder.appendingPathComponent("logic/xcodebuild.log"), encoding: .utf8)
        XCTAssertTrue(log.contains("Test Suite"), log)
        let shown = try project.pipe(["runs", "show", runID])
        XCTAssertTrue(shown.stdout.contains("artifacts/\(runID)/logic/xcodebuild.log"), shown.stdout)
        XCTAssertTrue(shown.stdout.contains("asked by"), shown.stdout)
        // Nothing left running on the host, and its folder removed.
        let attempt = try XCTUnwrap((logic["attempts"] as? [[String: Any]])?.first)
        let group = try XCTUnwrap((attempt["facts"] as? [String: String])?["remoteProcessGroup"])
        try assertNoProcess(inGroup: group)
        XCTAssertEqual(try hostProcesses(mentioning: runID), [])
        let remoteFolder = try XCTUnwrap(record["remoteRunFolder"] as? String)
        XCTAssertNotEqual(try host.inspect("test -d \(remoteFolder)").exitCode, 0, "\(remoteFolder) left on the host")

        // Asking again is harmless: the run is already cancelled.
        let again = try project.pipe(["runs", "cancel", runID])
        XCTAssertEqual(again.exitCode, 0, again.combined)
        XCTAssertTrue(again.stdout.contains("already cancelled"), again.stdout)
    }

    func testPruneNeverRemovesARunInProgress() throws {
        let project = try makeProject()
        XCTAssertEqual(try project.pipe(["run", "app-intents"]).exitCode, 0)
        let finished = try XCTUnwrap(project.runFolders().last)
        try makeFirstTest(of: "ReadingIDTests", take: 600, in: project)
        let run = try BackgroundPipe(["run", "app-intents"], in: project)
        let running = try XCTUnwrap(waitUntilTestsRun(in: project, layer: "logic", notAmong: [finished]))

        let prune = try project.pipe(["runs", "prune", "--keep", "0"])
        XCTAssertEqual(prune.exitCode, 0, prune.combined)
        XCTAssertTrue(prune.stdout.contains("removed 1 run "), prune.stdout)
        XCTAssertTrue(prune.stdout.contains(finished.lastPathComponent), prune.stdout)
        XCTAssertFalse(prune.stdout.contains(running.lastPathComponent), prune.stdout)
        XCTAssertEqual(project.runFolders(), [running])
        let older = try project.pipe(["runs", "prune", "--older", "0s"])
        XCTAssertTrue(older.stdout.contains("nothing to prune"), older.combined)

        // The run goes on untouched, and is stopped the proper way.
        let listed = try XCTUnwrap(try json(project, ["runs", "list"]) as? [[String: Any]])
        XCTAssertEqual(listed.map { $0["status"] as? String }, ["running"])
        XCTAssertEqual(try project.pipe(["runs", "cancel", "last"]).exitCode, 0)
        XCTAssertEqual(run.wait(timeout: 30).exitCode, 130)
        XCTAssertTrue(FileManager.default.fileExists(atPath: running.appendingPathComponent("summary.json").path))
    }
}
