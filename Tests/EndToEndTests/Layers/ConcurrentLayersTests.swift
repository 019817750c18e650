import Foundation
import PipeTestSupport
import XCTest

/// Independent layers run at the same time, each on its own SSH connection and simulator, against an emulated host
/// in canned mode: what overlapped is read from the run record's attempt times, never from wall-clock thresholds.
final class ConcurrentLayersTests: EmulatedHostTestCase {
    /// The default host's iPhone 15 on iOS 18.2, the one `device: iPhone 15` (latest runtime) chooses first.
    private let firstIPhone = "72A5047C-A8D0-4FF6-B858-BD5BC1AC4F2B"
    /// A second iPhone 15 on iOS 18.2 these tests add, so two layers can each have one.
    private let secondIPhone = "C0C0A000-0000-4000-8000-000000000002"

    override func setUpWithError() throws {
        try super.setUpWithError()
        try addSecondIPhone(to: host)
    }

    /// Two independent layers that may retry an infrastructure failure once, at once.
    private let twoLayersWithRetry = """
        repository:
          workspace: examples/reader-app
        simulator:
          device: iPhone 15
        retry:
          infrastructure: 1
          backoff: 0
        layers:
          logic:
            plugin: xcodebuild-test
            scheme: Reader
            only-testing: [ReaderTests/ReadingIDTests]
            timeout: 2m
          intent:
            plugin: xcodebuild-test
            scheme: Reader
            only-testing: [ReaderTests/CheckReadingIDIntentTests]
            timeout: 2m
        """

    func testIndependentLayersOverlapEachOnItsOwnSimulatorAndADependentWaitsForBoth() throws {
        let project = try makeProject()
        try makeFirstTest(of: "ReadingIDTests", take: 1.5, in: project)
        try makeFirstTest(of: "CheckReadingIDIntentTests", take: 1.5, in: project)
        let result = try project.pipe(["run", "app-intents"])
        XCTAssertEqual(result.exitCode, 0, result.combined)
        let record = try project.lastRecord()
        let logic = try attempts(of: "logic", in: record)
        let intent = try attempts(of: "intent", in: record)
        XCTAssertEqual([logic.count, intent.count], [1, 1])
        XCTAssertTrue(
            overlap(logic[0], intent[0]), "logic and intent need nothing of each other and ran at the same time")
        XCTAssertEqual(
            Set([logic[0].simulator, intent[0].simulator]), [firstIPhone, secondIPhone],
            "each layer has a simulator of its own, both of the runtime a one-at-a-time run would use")
        XCTAssertEqual(layer("logic", in: record)?["outcome"] as? String, "passed")
        XCTAssertEqual(layer("intent", in: record)?["outcome"] as? String, "passed")

        // The checklist needs both: it starts after both ended.
        let shortcuts = try attempts(of: "shortcuts", in: record)
        XCTAssertEqual(layer("shortcuts", in: record)?["outcome"] as? String, "awaiting-signoff")
        XCTAssertGreaterThanOrEqual(shortcuts[0].started, max(logic[0].finished, intent[0].finished))

        // The interleaved live output names the layer of each test line while both run.
        XCTAssertTrue(result.stdout.contains("[logic] ✓ ReadingIDTests/"), result.stdout)
        XCTAssertTrue(result.stdout.contains("[intent] ✓ CheckReadingIDIntentTests/"), result.stdout)
        XCTAssertTrue(result.stdout.contains("up to 4 at a time"), result.stdout)
        XCTAssertTrue(result.stdout.contains("up to 2 that need a simulator"), result.stdout)
        // Clean-up still happens, after both layers, and the extra connection's work leaves nothing behind.
        let remoteFolder = try XCTUnwrap(record["remoteRunFolder"] as? String)
        XCTAssertNotEqual(try host.inspect("test -d \(remoteFolder)").exitCode, 0, "\(remoteFolder) left on the host")
    }

    func testAFailedLayerSkipsWhatNeedsItWhileAnIndependentLayerRunsOnAndPasses() throws {
        let pipeline = """
            repository:
              workspace: examples/reader-app
            simulator:
              device: iPhone 15
            layers:
              logic:
                plugin: xcodebuild-test
                scheme: Reader
                only-testing: [ReaderTests/ReadingIDTests]
              after-logic:
                plugin: shell
                needs: [logic]
                command: "true"
              intent:
                plugin: xcodebuild-test
                scheme: Reader
                only-testing: [ReaderTests/CheckReadingIDIntentTests]
            """
        let project = try makeProject(pipeline: pipeline)
        try editCannedTests(in: project, message: "a ReadingID test fails; intent tests are slow") { tests in
            let failing = try XCTUnwrap(tests.firstIndex { $0["suite"] as? String == "ReadingIDTests" })
            tests[failing]["status"] = "failed"
            tests[failing]["message"] = "XCTAssertEqual failed"
            tests[failing]["duration"] = 1.0
            let slow = try XCTUnwrap(tests.firstIndex { $0["suite"] as? String == "CheckReadingIDIntentTests" })
            tests[slow]["duration"] = 2.5
        }
        let result = try project.pipe(["run", "app-intents", "--json"])
        XCTAssertEqual(result.exitCode, 1, result.combined)
        // Events of the two layers interleave, each on a whole line that names its layer.
        let lines = result.stdout.split(separator: "\n")
        let events = lines.compactMap { try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any] }
        XCTAssertEqual(events.count, lines.count, "every line is one JSON object:\n\(result.stdout)")
        let tests = events.filter { $0["event"] as? String == "test-finished" }
        XCTAssertEqual(Set(tests.compactMap { $0["layer"] as? String }), ["logic", "intent"])
        let record = try project.lastRecord()
        XCTAssertEqual(layer("logic", in: record)?["outcome"] as? String, "tests-failed")
        let skipped = try XCTUnwrap(layer("after-logic", in: record))
        XCTAssertEqual(skipped["outcome"] as? String, "skipped")
        XCTAssertEqual(skipped["evidence"] as? [String], ["needs logic (tests-failed), which did not pass"])
        XCTAssertEqual((skipped["attempts"] as? [Any])?.count, 0, "a skipped layer never runs")
        XCTAssertEqual(layer("intent", in: record)?["outcome"] as? String, "passed", "intent does not need logic")
        let logic = try attempts(of: "logic", in: record)
        let intent = try attempts(of: "intent", in: record)
        XCTAssertTrue(overlap(logic[0], intent[0]), "intent ran while logic failed")
    }

    func testConcurrencyOneRunsTheLayersOneAfterAnother() throws {
        let pipeline = try String(
            contentsOf: RepositoryPaths.root.appendingPathComponent("pipelines/app-intents.yml"), encoding: .utf8)
        let project = try makeProject(pipeline: "concurrency: 1\n" + pipeline)
        try makeFirstTest(of: "ReadingIDTests", take: 1.0, in: project)
        try makeFirstTest(of: "CheckReadingIDIntentTests", take: 1.0, in: project)
        let result = try project.pipe(["run", "app-intents"])
        XCTAssertEqual(result.exitCode, 0, result.combined)
        let record = try project.lastRecord()
        let logic = try attempts(of: "logic", in: record)
        let intent = try attempts(of: "intent", in: record)
        XCTAssertFalse(overlap(logic[0], intent[0]), "concurrency: 1 runs one layer at a time")
        XCTAssertGreaterThanOrEqual(intent[0].started, logic[0].finished, "file order kept")
        XCTAssertEqual(logic[0].simulator, intent[0].simulator, "one at a time, both use the first choice")
        XCTAssertFalse(result.stdout.contains("[logic]"), "nothing interleaves, so no line is tagged")
    }

    func testCtrlCWhileTwoLayersRunCancelsBothAndKillsBothRemoteProcessGroups() throws {
        try cancelWhileTwoLayersRun { run, _ in kill(run.pid, SIGINT) }
    }

    func testRunsCancelWhileTwoLayersRunCancelsBothAndKillsBothRemoteProcessGroups() throws {
        try cancelWhileTwoLayersRun { _, project in
            let cancel = try project.pipe(["runs", "cancel", "last", "--reason", "wrong branch"])
            XCTAssertEqual(cancel.exitCode, 0, cancel.combined)
        }
    }

    func testAConnectionDroppedUnderTwoRunningLayersIsReconnectedByEachForItsRetry() throws {
        let project = try makeProject(pipeline: twoLayersWithRetry)
        try makeFirstTest(of: "ReadingIDTests", take: 4, in: project)
        try makeFirstTest(of: "CheckReadingIDIntentTests", take: 4, in: project)
        let run = try BackgroundPipe(["run", "app-intents"], in: project)
        waitUntilTestsRun(in: project, layer: "logic")
        waitUntilTestsRun(in: project, layer: "intent")
        try dropConnections()
        let ended = run.wait(timeout: 90)
        XCTAssertEqual(ended.exitCode, 0, "both retries pass over new connections:\n\(ended.combined)")
        XCTAssertEqual(
            ended.stdout.components(separatedBy: "reconnected to mac-1").count - 1, 2,
            "each layer reconnects its own connection:\n\(ended.stdout)")
        let record = try project.lastRecord()
        for name in ["logic", "intent"] {
            let attempts = try XCTUnwrap(layer(name, in: record)?["attempts"] as? [[String: Any]], name)
            XCTAssertEqual(attempts.map { $0["outcome"] as? String }, ["infrastructure", "passed"], name)
        }
        let remoteFolder = try XCTUnwrap(record["remoteRunFolder"] as? String)
        XCTAssertNotEqual(try host.inspect("test -d \(remoteFolder)").exitCode, 0, "\(remoteFolder) left on the host")
    }

    func testTwoLayersThatLoseTheirHostTogetherMoveOnceToAnotherHostOfThePool() throws {
        let project = try makeProject(pipeline: twoLayersWithRetry)
        try addSecondIPhone(to: try addSecondHost(to: project))
        try makeFirstTest(of: "ReadingIDTests", take: 4, in: project)
        try makeFirstTest(of: "CheckReadingIDIntentTests", take: 4, in: project)
        let run = try BackgroundPipe(["run", "app-intents"], in: project)
        waitUntilTestsRun(in: project, layer: "logic")
        waitUntilTestsRun(in: project, layer: "intent")
        try dropConnections(alsoTheListener: true)
        let ended = run.wait(timeout: 90)
        XCTAssertEqual(ended.exitCode, 0, "both retries pass on mac-2:\n\(ended.combined)")
        XCTAssertEqual(
            ended.stdout.components(separatedBy: "moved the run from mac-1 to mac-2").count - 1, 1,
            "the run moves once, for both layers:\n\(ended.stdout)")
        let record = try project.lastRecord()
        var retriedOn: [String] = []
        for name in ["logic", "intent"] {
            let attempts = try XCTUnwrap(layer(name, in: record)?["attempts"] as? [[String: Any]], name)
            XCTAssertEqual(attempts.map { $0["outcome"] as? String }, ["infrastructure", "passed"], name)
            XCTAssertEqual(attempts.map { ($0["facts"] as? [String: String])?["host"] }, ["mac-1", "mac-2"], name)
            retriedOn += attempts.suffix(1).compactMap { $0["simulatorUDID"] as? String }
        }
        XCTAssertEqual(Set(retriedOn), [firstIPhone, secondIPhone], "on mac-2 too, each has a simulator of its own")
        XCTAssertEqual((record["host"] as? [String: Any])?["name"] as? String, "mac-2")
    }

    // MARK: - Helpers

    /// Gives `host` a second iPhone 15 on iOS 18.2 (a twin of the first, as `simctl clone` makes).
    private func addSecondIPhone(to host: EmulatedMacHost) throws {
        var config = try host.readConfig()
        var simulators = try XCTUnwrap(config["simulators"] as? [[String: Any]])
        var twin = try XCTUnwrap(simulators.first { $0["udid"] as? String == firstIPhone })
        twin["udid"] = secondIPhone
        simulators.append(twin)
        config["simulators"] = simulators
        try host.writeConfig(config)
    }

    private func cancelWhileTwoLayersRun(_ cancel: (BackgroundPipe, PipeProject) throws -> Void) throws {
        let project = try makeProject()
        try makeFirstTest(of: "ReadingIDTests", take: 600, in: project)
        try makeFirstTest(of: "CheckReadingIDIntentTests", take: 600, in: project)
        let run = try BackgroundPipe(["run", "app-intents"], in: project)
        let folder = waitUntilTestsRun(in: project, layer: "logic")
        waitUntilTestsRun(in: project, layer: "intent")
        XCTAssertEqual(folder, project.runFolders().last)
        try cancel(run, project)
        let ended = run.wait()
        XCTAssertEqual(ended.exitCode, 130, ended.combined)
        let record = try project.lastRecord()
        XCTAssertEqual(record["status"] as? String, "cancelled")
        for name in ["logic", "intent"] {
            let layerRecord = try XCTUnwrap(layer(name, in: record))
            XCTAssertEqual(layerRecord["outcome"] as? String, "cancelled", name)
            let group = try XCTUnwrap(
                ((layerRecord["attempts"] as? [[String: Any]])?.first?["facts"] as? [String: String])?[
                    "remoteProcessGroup"], name)
            try assertNoProcess(inGroup: group)
        }
        XCTAssertEqual(layer("shortcuts", in: record)?["outcome"] as? String, "cancelled", "never started")
        let remoteFolder = try XCTUnwrap(record["remoteRunFolder"] as? String)
        XCTAssertNotEqual(try host.inspect("test -d \(remoteFolder)").exitCode, 0, "\(remoteFolder) left on the host")
    }

    /// One attempt as the run record keeps it.
    private struct Attempt {
        var started: Date
        var finished: Date
        var simulator: String?
    }

    private func attempts(of name: String, in record: [String: Any]) throws -> [Attempt] {
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        let attempts = try XCTUnwrap(layer(name, in: record)?["attempts"] as? [[String: Any]], name)
        return try attempts.map { attempt in
            Attempt(
                started: try XCTUnwrap(formatter.date(from: attempt["startedAt"] as? String ?? ""), "\(attempt)"),
                finished: try XCTUnwrap(formatter.date(from: attempt["finishedAt"] as? String ?? ""), "\(attempt)"),
                simulator: attempt["simulatorUDID"] as? String)
        }
    }

    /// Whether the two attempts ran at the same time for a while.
    private func overlap(_ first: Attempt, _ second: Attempt) -> Bool {
        first.started < second.finished && second.started < first.finished
    }
}
