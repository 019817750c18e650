import Foundation
import PipeTestSupport
import XCTest

/// A coordinator killed with `kill -9` in the middle of a run, and what the next `pipe` process finds.
final class RunsRecoveryTests: EmulatedHostTestCase {
    func testARunWhoseCoordinatorWasKilledIsFoundInterruptedWithItsArtifactsKeptAndItsHostFolderReported() throws {
        let project = try makeProject()
        // The second layer hangs, so the first has passed and brought its artifacts back when the kill comes.
        try makeFirstTest(of: "CheckReadingIDIntentTests", take: 600, in: project)
        let run = try BackgroundPipe(["run", "app-intents"], in: project)
        let folder = try XCTUnwrap(waitUntilTestsRun(in: project, layer: "intent"))
        let runID = folder.lastPathComponent
        defer { try? killHostProcesses(mentioning: runID) }

        kill(run.pid, SIGKILL)
        let killed = run.wait(timeout: 10)
        XCTAssertEqual(run.process.terminationReason, .uncaughtSignal, killed.combined)
        let before = try record(ofRun: folder)
        XCTAssertEqual(before["status"] as? String, "running", "nobody has looked yet")

        // The next process that opens the store settles the run, and says what is left on the host.
        let list = try project.pipe(["runs", "list"])
        XCTAssertEqual(list.exitCode, 0, list.combined)
        let remoteFolder = try XCTUnwrap(before["remoteRunFolder"] as? String)
        for text in [
            "run \(runID) (app-intents) was interrupted", "pid \(run.pid)", "layers intent, shortcuts cancelled",
            "its folder \(remoteFolder) on mac-1 is left for `pipe hosts clean`",
        ] {
            XCTAssertTrue(list.stderr.contains(text), "'\(text)' missing from:\n\(list.stderr)")
        }
        XCTAssertTrue(list.stdout.contains("\(runID)  app-intents  interrupted"), list.stdout)
        let again = try project.pipe(["runs", "list"])
        XCTAssertFalse(again.stderr.contains("interrupted"), "settled once:\n\(again.stderr)")

        // The store: interrupted, the running layer cancelled with the interruption as evidence, the first
        // layer's artifacts kept and listed, the cut-short layer's log found on disk, the host folder pending.
        let shown = try XCTUnwrap(try json(project, ["runs", "show", runID]) as? [String: Any])
        XCTAssertEqual(shown["status"] as? String, "interrupted")
        XCTAssertNotNil(shown["interruptedAt"] as? String)
        XCTAssertEqual(shown["remoteFolderPendingCleanup"] as? Bool, true)
        XCTAssertEqual(layer("logic", in: shown)?["outcome"] as? String, "passed")
        let intent = try XCTUnwrap(layer("intent", in: shown))
        XCTAssertEqual(intent["outcome"] as? String, "cancelled")
        let evidence = (intent["evidence"] as? [String] ?? []).joined(separator: "\n")
        XCTAssertTrue(evidence.contains("interrupted: the coordinator (pid \(run.pid)"), evidence)
        let intentAttempt = try XCTUnwrap((intent["attempts"] as? [[String: Any]])?.first)
        XCTAssertEqual(intentAttempt["outcome"] as? String, "cancelled")
        XCTAssertNotNil(intentAttempt["durationSeconds"] as? Double, "an interrupted attempt still has a duration")
        let unrecorded = (shown["unrecordedFiles"] as? [[String: Any]] ?? []).compactMap { $0["path"] as? String }
        XCTAssertEqual(unrecorded, ["artifacts/\(runID)/intent/xcodebuild.log"])

        let text = try project.pipe(["runs", "show", runID])
        XCTAssertEqual(text.exitCode, 0, text.combined)
        for expected in [
            "· interrupted", "intent: cancelled", "interrupted: the coordinator", "found at",
            "\(remoteFolder) (left on mac-1 for `pipe hosts clean`)", "artifacts/\(runID)/logic/xcodebuild.log",
            "artifacts/\(runID)/intent/xcodebuild.log  (on disk, not recorded)",
        ] {
            XCTAssertTrue(text.stdout.contains(expected), "'\(expected)' missing from:\n\(text.stdout)")
        }
        for name in ["logic/exit-code", "logic/xcodebuild.log", "logic/xcresult-summary.json", "intent/xcodebuild.log"]
        {
            XCTAssertTrue(FileManager.default.fileExists(atPath: folder.appendingPathComponent(name).path), name)
        }

        // The run record on disk says so too.
        let after = try record(ofRun: folder)
        XCTAssertEqual(after["status"] as? String, "interrupted")
        XCTAssertEqual(layer("intent", in: after)?["outcome"] as? String, "cancelled")
        XCTAssertEqual(layer("logic", in: after)?["outcome"] as? String, "passed")

        // The folder really is still on the host (nobody stopped the remote work: the coordinator died).
        XCTAssertEqual(try host.inspect("test -d \(remoteFolder)").exitCode, 0)

        // Following or cancelling an interrupted run ends at once.
        let follow = try project.pipe(["runs", "logs", runID, "--follow"])
        XCTAssertEqual(follow.exitCode, 0, follow.combined)
        XCTAssertTrue(follow.stderr.contains("the run was interrupted"), follow.stderr)
        let cancel = try project.pipe(["runs", "cancel", runID])
        XCTAssertEqual(cancel.exitCode, 2, cancel.combined)
        XCTAssertTrue(cancel.stderr.contains("it is interrupted"), cancel.stderr)
    }
}
