import Foundation
import PipeTestSupport
import XCTest

/// Every classification produced on purpose by the emulated host, end to end: the layer's outcome, `pipe run`'s
/// exit code, the evidence that decided it, and the artifacts kept. A configuration or infrastructure failure is
/// never reported as a failing test.
final class ClassificationScenarioTests: EmulatedHostTestCase {
    /// The logic layer of the app-intents pipeline, with retries off unless a test turns them on.
    private let singleLayer = """
        repository:
          workspace: examples/reader-app
        simulator:
          device: iPhone 15
        retry:
          infrastructure: ${infrastructure-retries}
          backoff: 0
        parameters:
          infrastructure-retries: "0"
        layers:
          logic:
            plugin: xcodebuild-test
            scheme: Reader
            only-testing: [ReaderTests/ReadingIDTests]
            timeout: 2m
        """

    private struct Outcome {
        /// Kept so the project folder (removed when the project goes) outlives the checks.
        var project: PipeProject
        var exitCode: Int32
        var output: String
        var layer: [String: Any]
        var evidence: String
        var folder: URL
    }

    private func runLogic(
        _ project: PipeProject, arguments: [String] = [], file: StaticString = #filePath, line: UInt = #line
    ) throws -> Outcome {
        let result = try project.pipe(["run", "app-intents"] + arguments)
        let record = try project.lastRecord(file: file, line: line)
        let logic = try XCTUnwrap(layer("logic", in: record), file: file, line: line)
        let folder = try XCTUnwrap(project.runFolders().last, file: file, line: line)
        // Whatever the outcome, the exit code and the full log are kept.
        for name in ["exit-code", "xcodebuild.log"] {
            XCTAssertTrue(
                FileManager.default.fileExists(atPath: folder.appendingPathComponent("logic/\(name)").path),
                "logic/\(name) kept", file: file, line: line)
        }
        return Outcome(
            project: project, exitCode: result.exitCode, output: result.combined, layer: logic,
            evidence: (logic["evidence"] as? [String] ?? []).joined(separator: "\n"), folder: folder)
    }

    private func setFault(_ key: String, _ value: Any) throws {
        var config = try host.readConfig()
        config["faults"] = [key: value]
        try host.writeConfig(config)
    }

    func testSchemeWithoutATestActionIsHostConfig() throws {
        var config = try host.readConfig()
        config["schemesWithoutTestAction"] = ["Reader"]
        try host.writeConfig(config)
        let run = try runLogic(try makeProject(pipeline: singleLayer))
        XCTAssertEqual(run.exitCode, 3, run.output)
        XCTAssertEqual(run.layer["outcome"] as? String, "host-config")
        XCTAssertTrue(run.evidence.contains("is not currently configured for the test action"), run.evidence)
        XCTAssertEqual(try exitCode(in: run.folder), "66")
    }

    func testAnExistingResultBundlePathIsHostConfig() throws {
        try setFault("resultBundlePathExists", true)
        let run = try runLogic(try makeProject(pipeline: singleLayer))
        XCTAssertEqual(run.exitCode, 3, run.output)
        XCTAssertEqual(run.layer["outcome"] as? String, "host-config")
        XCTAssertTrue(run.evidence.contains("Existing file at -resultBundlePath"), run.evidence)
        XCTAssertEqual(try exitCode(in: run.folder), "64")
    }

    func testACompileErrorIsABuildFailureWithTheCompilerLine() throws {
        let project = try makeProject(pipeline: singleLayer)
        try breakReaderBuild(in: project)
        let run = try runLogic(project)
        XCTAssertEqual(run.exitCode, 1, run.output)
        XCTAssertEqual(run.layer["outcome"] as? String, "build-failed")
        XCTAssertTrue(run.evidence.contains("cannot find 'maxLength'"), run.evidence)
        XCTAssertEqual(try exitCode(in: run.folder), "65")
        XCTAssertEqual(try bundles(in: run.folder).count, 1, "the bundle of a failed build is kept")
    }

    func testFailingTestsAreNamedWithMessageAndLocation() throws {
        let project = try makeProject(pipeline: singleLayer)
        try editCannedTests(in: project, message: "a failing test") { tests in
            tests[1]["status"] = "failed"
            tests[1]["message"] = "XCTAssertEqual failed: (\"book_7 \") is not equal to (\"book_7\")"
            tests[1]["file"] = "Tests/ReaderTests/ReadingIDTests.swift"
            tests[1]["line"] = 21
        }
        let run = try runLogic(project)
        XCTAssertEqual(run.exitCode, 1, run.output)
        XCTAssertEqual(run.layer["outcome"] as? String, "tests-failed")
        let failed = (run.layer["tests"] as? [[String: Any]] ?? []).filter { $0["status"] as? String == "failed" }
        XCTAssertEqual(failed.count, 1)
        XCTAssertEqual(failed.first?["failureLocation"] as? String, "ReadingIDTests.swift:21")
        XCTAssertTrue(run.output.contains("ReadingIDTests.swift:21: XCTAssertEqual failed"), run.output)
        XCTAssertEqual(try exitCode(in: run.folder), "65")
        XCTAssertEqual(try bundles(in: run.folder).count, 1)
        XCTAssertTrue(
            FileManager.default.fileExists(
                atPath: run.folder.appendingPathComponent("logic/xcresult-summary.json").path))
    }

    func testASimulatorThatDoesNotBootIsInfrastructureRetriedOnAnotherSimulator() throws {
        try setFault("simulatorBootFailure", true)
        let run = try runLogic(
            try makeProject(pipeline: singleLayer), arguments: ["--param", "infrastructure-retries=1"])
        XCTAssertEqual(run.exitCode, 3, run.output)
        XCTAssertEqual(run.layer["outcome"] as? String, "infrastructure")
        XCTAssertTrue(run.evidence.contains("Unable to boot the Simulator"), run.evidence)
        let attempts = try XCTUnwrap(run.layer["attempts"] as? [[String: Any]])
        XCTAssertEqual(attempts.count, 2)
        XCTAssertEqual(Set(attempts.compactMap { $0["simulatorUDID"] as? String }).count, 2)
    }

    func testAFullDiskWhenWritingTheBundleIsInfrastructure() throws {
        try setFault("diskFullOnBundle", true)
        let run = try runLogic(try makeProject(pipeline: singleLayer))
        XCTAssertEqual(run.exitCode, 3, run.output)
        XCTAssertEqual(run.layer["outcome"] as? String, "infrastructure")
        XCTAssertTrue(run.evidence.contains("No space left on device"), run.evidence)
    }

    func testAConnectionDroppedMidTestIsInfrastructureAndTheRetryReconnects() throws {
        let project = try makeProject(pipeline: singleLayer)
        try makeFirstTest(of: "ReadingIDTests", take: 4, in: project)
        let pipe = try BackgroundPipe(
            ["run", "app-intents", "--param", "infrastructure-retries=1"], in: project)
        waitUntilTestsRun(in: project, layer: "logic")
        try dropConnections()
        let ended = pipe.wait(timeout: 90)
        XCTAssertEqual(ended.exitCode, 0, "the retry on a new connection passes:\n\(ended.combined)")
        let record = try project.lastRecord()
        let logic = try XCTUnwrap(layer("logic", in: record))
        XCTAssertEqual(logic["outcome"] as? String, "passed", "a pass after an infrastructure retry is passed")
        let attempts = try XCTUnwrap(logic["attempts"] as? [[String: Any]])
        XCTAssertEqual(attempts.first?["outcome"] as? String, "infrastructure")
        XCTAssertEqual(attempts.last?["outcome"] as? String, "passed")
        XCTAssertTrue(ended.stdout.contains("reconnected to mac-1"), ended.stdout)
    }

    func testALayerWhoseHostIsGoneIsRetriedOnAnotherHostOfThePool() throws {
        let project = try makeProject(pipeline: singleLayer)
        _ = try addSecondHost(to: project)
        try makeFirstTest(of: "ReadingIDTests", take: 4, in: project)
        let pipe = try BackgroundPipe(
            ["run", "app-intents", "--param", "infrastructure-retries=1"], in: project)
        waitUntilTestsRun(in: project, layer: "logic")
        // mac-1 disappears: its listener and its connections go, so Pipe cannot reconnect.
        try dropConnections(alsoTheListener: true)
        let ended = pipe.wait(timeout: 90)
        XCTAssertEqual(ended.exitCode, 0, "the retry on mac-2 passes:\n\(ended.combined)")
        XCTAssertTrue(ended.stdout.contains("moved the run from mac-1 to mac-2"), ended.stdout)
        let record = try project.lastRecord()
        let attempts = try XCTUnwrap(layer("logic", in: record)?["attempts"] as? [[String: Any]])
        XCTAssertEqual(attempts.map { $0["outcome"] as? String }, ["infrastructure", "passed"])
        XCTAssertEqual(attempts.map { ($0["facts"] as? [String: String])?["host"] }, ["mac-1", "mac-2"])
        XCTAssertEqual((record["host"] as? [String: Any])?["name"] as? String, "mac-2")
    }

    // MARK: - A test runner that never started

    /// The retry of a runner failure goes to another simulator; the same failure there is the app's, since an app
    /// that crashes at launch stops the runner the same way on every device.
    func testTheSameRunnerFailureOnTwoSimulatorsIsTheApps() throws {
        try setFault("testRunnerEarlyExit", ["*"])
        let run = try runLogic(
            try makeProject(pipeline: singleLayer), arguments: ["--param", "infrastructure-retries=1"])
        XCTAssertEqual(run.layer["outcome"] as? String, "tests-failed", run.output)
        XCTAssertEqual(run.exitCode, 1, run.output)
        let attempts = try XCTUnwrap(run.layer["attempts"] as? [[String: Any]])
        XCTAssertEqual(attempts.map { $0["outcome"] as? String }, ["infrastructure", "infrastructure"])
        let simulators = attempts.compactMap { $0["simulatorUDID"] as? String }
        XCTAssertEqual(Set(simulators).count, 2, "the retry ran on another simulator: \(simulators)")
        let evidence = run.layer["evidence"] as? [String] ?? []
        XCTAssertEqual(evidence.first, "the test runner never started on two simulators; the app may crash at launch")
        for (index, udid) in simulators.enumerated() {
            XCTAssertTrue(
                evidence.contains {
                    $0.hasPrefix("attempt \(index + 1) on simulator \(udid): ") && $0.contains("Early unexpected exit")
                }, run.evidence)
        }
    }

    func testARunnerFailureOnOneSimulatorIsTheMachinesAndTheRetryDecides() throws {
        try setFault("testRunnerEarlyExit", ["*"])
        let project = try makeProject(pipeline: singleLayer)
        let both = try runLogic(project, arguments: ["--param", "infrastructure-retries=1"])
        let first = try XCTUnwrap((both.layer["attempts"] as? [[String: Any]])?.first?["simulatorUDID"] as? String)

        try setFault("testRunnerEarlyExit", [first])
        let run = try runLogic(project, arguments: ["--param", "infrastructure-retries=1"])
        let attempts = try XCTUnwrap(run.layer["attempts"] as? [[String: Any]])
        XCTAssertEqual(attempts.first?["simulatorUDID"] as? String, first, "the same simulator is chosen first")
        XCTAssertEqual(attempts.map { $0["outcome"] as? String }, ["infrastructure", "passed"], run.output)
        XCTAssertEqual(run.layer["outcome"] as? String, "passed", run.output)
        XCTAssertEqual(run.exitCode, 0, run.output)
        let firstEvidence = (attempts.first?["evidence"] as? [String] ?? []).joined(separator: "\n")
        XCTAssertTrue(firstEvidence.contains("the test runner failed, not the app under test"), firstEvidence)
    }

    // MARK: - Helpers

    private func exitCode(in folder: URL) throws -> String {
        try String(contentsOf: folder.appendingPathComponent("logic/exit-code"), encoding: .utf8)
            .trimmingCharacters(in: .whitespacesAndNewlines)
    }

    private func bundles(in folder: URL) throws -> [String] {
        try FileManager.default.contentsOfDirectory(atPath: folder.appendingPathComponent("logic").path)
            .filter { $0.hasSuffix(".xcresult") }
    }
}
