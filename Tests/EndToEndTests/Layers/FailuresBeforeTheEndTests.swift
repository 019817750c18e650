import Foundation
import PipeTestSupport
import XCTest

/// A test that failed an assertion is the app's failure however the run ended afterwards (issue 18 §4), end to end:
/// the log that streamed back before a lost connection is read, and a cancelled or timed-out run keeps its outcome
/// with the failures seen as evidence.
final class FailuresBeforeTheEndTests: EmulatedHostTestCase {
    private let failingTest = "ReadingIDTests/testTrimsSurroundingWhitespace()"
    private let failureMessage = "XCTAssertEqual failed: (\"book_7 \") is not equal to (\"book_7\")"

    private func pipeline(timeout: String) -> String {
        """
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
            timeout: \(timeout)
        """
    }

    /// The first test fails at once; the second then runs for a minute, long enough to stop the run in it.
    private func makeProjectWithAFailureThenASlowTest(timeout: String = "2m") throws -> PipeProject {
        let project = try makeProject(pipeline: pipeline(timeout: timeout))
        try editCannedTests(in: project, message: "a failing test, then a slow one") { tests in
            let inSuite = tests.indices.filter { tests[$0]["suite"] as? String == "ReadingIDTests" }
            tests[inSuite[0]]["status"] = "failed"
            tests[inSuite[0]]["message"] = failureMessage
            tests[inSuite[0]]["file"] = "Tests/ReaderTests/ReadingIDTests.swift"
            tests[inSuite[0]]["line"] = 21
            tests[inSuite[1]]["duration"] = 60
        }
        return project
    }

    /// Waits until the log that came back shows the failed test, and returns the run's folder.
    private func waitUntilTheFailureIsSeen(in project: PipeProject) throws -> URL {
        var runFolder: URL?
        waitUntil("the failed test is in the log that came back") {
            guard let folder = project.runFolders().last,
                let log = try? String(
                    contentsOf: folder.appendingPathComponent("logic/xcodebuild.log"), encoding: .utf8)
            else { return false }
            runFolder = folder
            return log.contains("testTrimsSurroundingWhitespace]' failed")
        }
        return try XCTUnwrap(runFolder)
    }

    private func evidence(of layer: [String: Any]) -> String {
        (layer["evidence"] as? [String] ?? []).joined(separator: "\n")
    }

    func testAConnectionLostAfterAFailedTestIsTheAppsFailureAndIsNotRetried() throws {
        let project = try makeProjectWithAFailureThenASlowTest()
        let pipe = try BackgroundPipe(["run", "app-intents"], in: project)
        let folder = try waitUntilTheFailureIsSeen(in: project)
        try dropConnections()
        let ended = pipe.wait(timeout: 90)
        XCTAssertEqual(ended.exitCode, 1, "the app failed:\n\(ended.combined)")
        let logic = try XCTUnwrap(layer("logic", in: try project.lastRecord()))
        XCTAssertEqual(logic["outcome"] as? String, "tests-failed", ended.combined)
        let evidence = evidence(of: logic)
        XCTAssertTrue(evidence.contains(failureMessage), evidence)
        XCTAssertTrue(evidence.contains("then the connection was lost before xcodebuild ended"), evidence)
        let attempts = logic["attempts"] as? [[String: Any]] ?? []
        XCTAssertLessThanOrEqual(attempts.count, 1, "a failure of the app is not retried as infrastructure")
        let failed = (logic["tests"] as? [[String: Any]] ?? []).filter { $0["status"] as? String == "failed" }
        XCTAssertEqual(failed.compactMap { $0["identifier"] as? String }, [failingTest])
        let log = try String(contentsOf: folder.appendingPathComponent("logic/xcodebuild.log"), encoding: .utf8)
        XCTAssertTrue(log.contains(failureMessage), "the log that came back is kept")
    }

    func testATimeoutAfterAFailedTestStaysTimedOutWithTheFailureAsEvidence() throws {
        let project = try makeProjectWithAFailureThenASlowTest(timeout: "15s")
        let result = try project.pipe(["run", "app-intents"])
        XCTAssertEqual(result.exitCode, 1, result.combined)
        let logic = try XCTUnwrap(layer("logic", in: try project.lastRecord()))
        XCTAssertEqual(logic["outcome"] as? String, "timed-out", result.combined)
        let evidence = evidence(of: logic)
        XCTAssertTrue(evidence.contains("the layer's timeout ran out"), evidence)
        XCTAssertTrue(evidence.contains("1 test(s) had failed before the run was stopped"), evidence)
        XCTAssertTrue(evidence.contains(failureMessage), evidence)
        XCTAssertTrue(evidence.contains("the last test that started: "), evidence)
        XCTAssertLessThanOrEqual((logic["attempts"] as? [[String: Any]] ?? []).count, 1, "a timeout is not retried")
    }

    func testACancelAfterAFailedTestStaysCancelledWithTheFailureAsEvidence() throws {
        let project = try makeProjectWithAFailureThenASlowTest()
        let pipe = try BackgroundPipe(["run", "app-intents"], in: project)
        _ = try waitUntilTheFailureIsSeen(in: project)
        kill(pipe.pid, SIGINT)
        let ended = pipe.wait(timeout: 60)
        XCTAssertEqual(ended.exitCode, 130, ended.combined)
        let logic = try XCTUnwrap(layer("logic", in: try project.lastRecord()))
        XCTAssertEqual(logic["outcome"] as? String, "cancelled", ended.combined)
        let evidence = evidence(of: logic)
        XCTAssertTrue(evidence.contains("cancelled by Ctrl-C (SIGINT)"), evidence)
        XCTAssertTrue(evidence.contains("1 test(s) had failed before the run was stopped"), evidence)
        XCTAssertTrue(evidence.contains(failureMessage), evidence)
    }
}
