import Foundation
import PipeTestSupport
import XCTest

/// `retry.tests` on a host whose Xcode (12.5.1, `emulator/hosts/xcode-12.5.json`) lacks Xcode 13's own retry: each
/// new attempt runs only the tests that failed (`-only-testing` for each), over real SSH, and the layer's tests are
/// merged per test.
final class FailedOnlyRetryTests: EmulatedHostTestCase {
    override func setUpWithError() throws {
        hostState = try TemporaryDirectory(prefix: "pipe-e2e-xcode-12")
        host = try EmulatedMacHost(
            name: "mac-1", config: RepositoryPaths.root.appendingPathComponent("emulator/hosts/xcode-12.5.json"),
            stateDirectory: hostState.url)
    }

    private static let pipeline = """
        repository:
          workspace: examples/reader-app
        simulator:
          device: iPhone 12
        flaky: allow
        layers:
          logic:
            plugin: xcodebuild-test
            scheme: Reader
            only-testing: [ReaderTests]
            retry:
              tests: 2
              backoff: 0s
        """

    /// Of the Reader scheme's 19 tests, the first fails once and the second twice, then each passes.
    private func project(failuresOfTheSecond: Int = 2) throws -> PipeProject {
        let project = try PipeProject(host: host, pipeline: Self.pipeline)
        try editCannedTests(in: project, message: "two flaky tests") { tests in
            tests[0]["failuresBeforePass"] = 1
            tests[1]["failuresBeforePass"] = failuresOfTheSecond
        }
        return project
    }

    private let first = "ReadingIDTests/testTrimsSurroundingWhitespace()"
    private let second = "ReadingIDTests/testTrimsIdeographicSpaceTypedByAJapaneseIME()"

    func testEachRetryRunsOnlyTheTestsThatFailedAndTheLayerIsFlakyWithEveryTestOnce() throws {
        let project = try project()
        let result = try project.pipe(["run", "app-intents"])
        XCTAssertEqual(result.exitCode, 0, "flaky passes under flaky: allow:\n\(result.combined)")
        let logic = try XCTUnwrap(layer("logic", in: try project.lastRecord()))
        XCTAssertEqual(logic["outcome"] as? String, "flaky")
        let attempts = try XCTUnwrap(logic["attempts"] as? [[String: Any]])
        XCTAssertEqual(attempts.map { $0["outcome"] as? String }, ["tests-failed", "tests-failed", "passed"])
        // Each command with a space after its last word, so `-only-testing:ReaderTests ` is the whole target.
        let commands = attempts.map { (($0["facts"] as? [String: String])?["command"] ?? "") + " " }
        XCTAssertFalse(commands[0].contains("-retry-tests-on-failure"), commands[0])
        XCTAssertTrue(commands[0].contains("-only-testing:ReaderTests "), "the layer's own selection: \(commands[0])")
        XCTAssertTrue(commands[1].contains("-only-testing:ReaderTests/ReadingIDTests/testTrimsSurroundingWhitespace"))
        XCTAssertTrue(
            commands[1].contains(
                "-only-testing:ReaderTests/ReadingIDTests/testTrimsIdeographicSpaceTypedByAJapaneseIME"))
        XCTAssertFalse(commands[1].contains("-only-testing:ReaderTests "), "the layer's selection is replaced")
        XCTAssertFalse(commands[2].contains("testTrimsSurroundingWhitespace"), "it passed on attempt 2: \(commands[2])")
        XCTAssertTrue(commands[2].contains("testTrimsIdeographicSpaceTypedByAJapaneseIME"), commands[2])

        // What each attempt ran, from its own log on the coordinator.
        let runFolder = try XCTUnwrap(project.runFolders().last)
        let started = try ["logic", "logic/attempt-2", "logic/attempt-3"].map { folder in
            try String(
                contentsOf: runFolder.appendingPathComponent("\(folder)/xcodebuild.log"), encoding: .utf8
            ).components(separatedBy: "\n").filter { $0.hasPrefix("Test Case ") && $0.contains("started") }.count
        }
        XCTAssertEqual(started, [19, 2, 1])
        let bundles = attempts.compactMap { ($0["facts"] as? [String: String])?["resultBundleRemotePath"] }
        XCTAssertEqual(Set(bundles).count, 3, "every attempt keeps its own bundle")
        for folder in ["logic", "logic/attempt-2", "logic/attempt-3"] {
            let names = try FileManager.default.contentsOfDirectory(
                atPath: runFolder.appendingPathComponent(folder).path)
            XCTAssertEqual(names.filter { $0.hasSuffix(".xcresult") }.count, 1, "\(folder): \(names)")
        }

        // The layer's tests: every test once, each its last attempt's result.
        let tests = try XCTUnwrap(logic["tests"] as? [[String: Any]])
        let identifiers = tests.compactMap { $0["identifier"] as? String }
        XCTAssertEqual(identifiers.count, 19)
        XCTAssertEqual(Set(identifiers).count, 19)
        XCTAssertEqual(Set(tests.compactMap { $0["status"] as? String }), ["passed"])
        XCTAssertEqual(tests.first { $0["identifier"] as? String == first }?["target"] as? String, "ReaderTests")
        XCTAssertTrue(result.stdout.contains("19 passed"), result.stdout)
        let junit = try String(contentsOf: runFolder.appendingPathComponent("junit.xml"), encoding: .utf8)
        XCTAssertEqual(junit.components(separatedBy: "<testcase ").count - 1, 19, junit)
        XCTAssertEqual(junit.components(separatedBy: "<flakyFailure").count - 1, 3, "1 + 2 earlier failures:\n\(junit)")
    }

    func testATestThatFailsOnEveryRetryFailsTheLayerAndTheOthersStillCountOnce() throws {
        let project = try project(failuresOfTheSecond: 5)
        let result = try project.pipe(["run", "app-intents"])
        XCTAssertEqual(result.exitCode, 1, result.combined)
        let logic = try XCTUnwrap(layer("logic", in: try project.lastRecord()))
        XCTAssertEqual(logic["outcome"] as? String, "tests-failed")
        let attempts = try XCTUnwrap(logic["attempts"] as? [[String: Any]])
        XCTAssertEqual(attempts.count, 3)
        let tests = try XCTUnwrap(logic["tests"] as? [[String: Any]])
        XCTAssertEqual(tests.count, 19)
        let failed = tests.filter { $0["status"] as? String == "failed" }.compactMap { $0["identifier"] as? String }
        XCTAssertEqual(failed, [second])
        XCTAssertTrue(result.stdout.contains("18 passed"), result.stdout)
    }
}
