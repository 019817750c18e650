import Foundation
import PipeTestSupport
import XCTest

/// `logic` and `intent` of the app-intents pipeline test one scheme: the run builds once (`build-for-testing`) and
/// each layer runs `test-without-building` with its own fresh bundle, exit code and log; the record says what the
/// shared build saved. What ran on the host is read from the emulated host's own xcodebuild log.
final class SharedBuildEndToEndTests: EmulatedHostTestCase {
    /// The xcodebuild actions run on the host since `earlier` lines of its log (the first argument of each line).
    private func actions(after earlier: Int = 0) -> [String] {
        let base = host.configURL.deletingPathExtension().lastPathComponent
        let url = host.configURL.deletingLastPathComponent().appendingPathComponent("\(base).xcodebuild.log")
        let lines = ((try? String(contentsOf: url, encoding: .utf8)) ?? "").split(separator: "\n").dropFirst(earlier)
        return lines.map { $0.split(separator: " ").dropFirst().first.map(String.init) ?? "" }
    }

    private func facts(_ name: String, in record: [String: Any]) throws -> [String: String] {
        let attempts = try XCTUnwrap(layer(name, in: record)?["attempts"] as? [[String: Any]])
        return try XCTUnwrap(attempts.last?["facts"] as? [String: String])
    }

    private func read(_ url: URL) throws -> String { try String(contentsOf: url, encoding: .utf8) }

    func testTwoLayersOfOneSchemeBuildOnceAndEachRunsItsOwnTests() throws {
        let project = try makeProject()
        let before = actions().count
        let result = try project.pipe(["run", "app-intents"])
        XCTAssertEqual(result.exitCode, 0, result.combined)
        XCTAssertEqual(
            actions(after: before), ["build-for-testing", "test-without-building", "test-without-building"],
            "exactly one build on the host, then one test run per layer")
        XCTAssertTrue(result.stdout.contains("building once for layers logic, intent on mac-1"), result.stdout)
        XCTAssertTrue(result.stdout.contains("layer intent reuses the build of logic"), result.stdout)

        let runFolder = try XCTUnwrap(project.runFolders().last)
        let build = runFolder.appendingPathComponent("build-for-testing/logic+intent")
        XCTAssertEqual(try read(build.appendingPathComponent("exit-code")), "0\n")
        let buildLog = try read(build.appendingPathComponent("xcodebuild.log"))
        XCTAssertTrue(buildLog.contains("** TEST BUILD SUCCEEDED **"), buildLog)
        XCTAssertFalse(buildLog.contains("Test Case"), "the build ran no test")

        let record = try project.lastRecord()
        var bundles: Set<String> = []
        for (name, suite) in [("logic", "ReadingIDTests"), ("intent", "CheckReadingIDIntentTests")] {
            let folder = runFolder.appendingPathComponent(name)
            XCTAssertEqual(try read(folder.appendingPathComponent("exit-code")), "0\n")
            let log = try read(folder.appendingPathComponent("xcodebuild.log"))
            XCTAssertTrue(log.contains("xcodebuild test-without-building -scheme Reader"), log)
            XCTAssertTrue(log.contains("** TEST EXECUTE SUCCEEDED **"), log)
            XCTAssertFalse(log.contains("SwiftCompile"), "\(name) compiled nothing")
            XCTAssertTrue(log.contains("Test Case '-[ReaderTests.\(suite) "), log)
            let own = try FileManager.default.contentsOfDirectory(atPath: folder.path).filter {
                $0.hasSuffix(".xcresult")
            }
            XCTAssertEqual(own.count, 1, "one bundle of its own in \(folder.path)")
            bundles.formUnion(own)
            XCTAssertEqual(layer(name, in: record)?["outcome"] as? String, "passed")
        }
        XCTAssertEqual(bundles.count, 2, "a fresh bundle per layer")

        // The record: who built, how long, and what the layer that reused it did not spend.
        let logic = try facts("logic", in: record)
        let intent = try facts("intent", in: record)
        XCTAssertEqual(logic["sharedBuild"], "logic, intent")
        XCTAssertEqual(intent["sharedBuildBy"], "logic")
        XCTAssertEqual(logic["buildSecondsSaved"], "0.000")
        let seconds = try XCTUnwrap(Double(intent["sharedBuildSeconds"] ?? ""))
        XCTAssertGreaterThanOrEqual(seconds, 0.3, "the canned build takes 0.3 s")
        XCTAssertEqual(intent["buildSecondsSaved"], intent["sharedBuildSeconds"])
        XCTAssertEqual(
            intent["sharedBuildLog"],
            "artifacts/\(runFolder.lastPathComponent)/build-for-testing/logic+intent/"
                + "xcodebuild.log")
        XCTAssertTrue(intent["command"]?.hasPrefix("xcodebuild test-without-building") == true)
        // In the run's build cache, at a path that stays from run to run.
        let derivedData = intent["derivedDataPath"] ?? ""
        XCTAssertTrue(
            derivedData.contains("/cache/trusted-") && derivedData.contains("/builds/logic+intent-"), derivedData)
        XCTAssertTrue(derivedData.hasSuffix("/DerivedData"), derivedData)
        // The store holds the same facts.
        let shown = try project.pipe(["runs", "show", "last", "--json"])
        let stored = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(shown.stdout.utf8)) as? [String: Any])
        XCTAssertEqual(try facts("intent", in: stored)["buildSecondsSaved"], intent["buildSecondsSaved"])
    }

    func testABuildFailureFailsEverySharingLayerWithTheCompilerLine() throws {
        let project = try makeProject()
        try breakReaderBuild(in: project)
        let before = actions().count
        let result = try project.pipe(["run", "app-intents"])
        XCTAssertEqual(result.exitCode, 1, result.combined)
        XCTAssertEqual(actions(after: before), ["build-for-testing"], "no test runs on a failed build, no rebuild")
        let record = try project.lastRecord()
        let runFolder = try XCTUnwrap(project.runFolders().last)
        for name in ["logic", "intent"] {
            let entry = try XCTUnwrap(layer(name, in: record))
            XCTAssertEqual(entry["outcome"] as? String, "build-failed", name)
            let evidence = (entry["evidence"] as? [String] ?? []).joined(separator: "\n")
            XCTAssertTrue(evidence.contains("the build-for-testing shared by logic, intent failed"), evidence)
            XCTAssertTrue(evidence.contains("ReadingID.swift:7:9: error: cannot find 'maxLength'"), evidence)
            XCTAssertTrue(evidence.contains("** TEST BUILD FAILED **"), evidence)
            let folder = runFolder.appendingPathComponent(name)
            XCTAssertEqual(try read(folder.appendingPathComponent("exit-code")), "65\n")
            XCTAssertTrue(try read(folder.appendingPathComponent("xcodebuild.log")).contains("** TEST BUILD FAILED **"))
            XCTAssertEqual(try facts(name, in: record)["buildSecondsSaved"], "0.000")
        }
        XCTAssertEqual(
            try read(runFolder.appendingPathComponent("build-for-testing/logic+intent/exit-code")), "65\n")
        XCTAssertEqual(layer("shortcuts", in: record)?["outcome"] as? String, "skipped")
    }

    func testASingleLayerStillRunsXcodebuildTest() throws {
        let project = try makeProject()
        let before = actions().count
        let result = try project.pipe(["run", "app-intents", "--only", "logic"])
        XCTAssertEqual(layer("logic", in: try project.lastRecord())?["outcome"] as? String, "passed", result.combined)
        XCTAssertEqual(actions(after: before), ["test"])
        let runFolder = try XCTUnwrap(project.runFolders().last)
        XCTAssertTrue(
            try read(runFolder.appendingPathComponent("logic/xcodebuild.log")).contains("** TEST SUCCEEDED **"))
        XCTAssertFalse(
            FileManager.default.fileExists(atPath: runFolder.appendingPathComponent("build-for-testing").path))
        let logicFacts = try facts("logic", in: try project.lastRecord())
        XCTAssertNil(logicFacts["sharedBuild"])
        // Its own derived-data folder: layers running at once must not build in one folder.
        let command = try XCTUnwrap(logicFacts["command"])
        XCTAssertTrue(command.contains("-derivedDataPath "), command)
        XCTAssertTrue(command.contains("/builds/logic-"), command)
    }

    func testARetryAfterALostConnectionDuringTheBuildBuildsAgain() throws {
        let project = try makeProject()
        try editReaderScheme(in: project, message: "a slow build") { $0["buildSeconds"] = 4 }
        try project.commit(
            "pipelines/app-intents.yml",
            try read(project.url.appendingPathComponent("pipelines/app-intents.yml"))
                + "\nretry:\n  infrastructure: 1\n  backoff: 0\n",
            message: "retry once after an infrastructure failure")
        let before = actions().count
        let pipe = try BackgroundPipe(["run", "app-intents"], in: project)
        waitUntil("the shared build runs on the host") { actions(after: before) == ["build-for-testing"] }
        try dropConnections()
        let ended = pipe.wait(timeout: 90)
        XCTAssertEqual(ended.exitCode, 0, "the retry builds again and passes:\n\(ended.combined)")
        XCTAssertEqual(
            actions(after: before),
            ["build-for-testing", "build-for-testing", "test-without-building", "test-without-building"],
            "the failed build was not reused")
        let record = try project.lastRecord()
        let logic = try XCTUnwrap(layer("logic", in: record)?["attempts"] as? [[String: Any]])
        XCTAssertEqual(logic.map { $0["outcome"] as? String }, ["infrastructure", "passed"])
        let runFolder = try XCTUnwrap(project.runFolders().last)
        for folder in ["logic+intent", "logic+intent-2"] {
            XCTAssertTrue(
                FileManager.default.fileExists(
                    atPath: runFolder.appendingPathComponent("build-for-testing/\(folder)/xcodebuild.log").path),
                "the log of build \(folder) is kept")
        }
        XCTAssertEqual(
            try facts("intent", in: record)["sharedBuildLog"]?.hasSuffix("logic+intent-2/xcodebuild.log"), true)
    }
}
