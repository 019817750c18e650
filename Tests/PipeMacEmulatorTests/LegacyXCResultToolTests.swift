import Foundation
import XCTest

/// The emulated `xcresulttool` of Xcode 15 and earlier: only the legacy object graph (`get --format json [--id]`,
/// `export --type file`), in the shapes of real captures (`Tests/PipeReportTests/Fixtures/real/xcresult/`), and
/// Xcode 16's tool giving the same graph behind `--legacy`.
final class LegacyXCResultToolTests: XCTestCase {
    private var host: EmulatorHarness!
    private var workspace: URL!

    override func setUpWithError() throws {
        host = try EmulatorHarness()
        workspace = try host.copyFixture("canned-reader", as: "reader-app")
    }

    private func useXcode15() throws {
        try host.changeConfig { $0["xcode"] = ["version": "15.4", "build": "15F31d"] }
    }

    private func runReader() -> String {
        host.runCannedReader(in: workspace)
    }

    private func get(_ bundle: String, id: String? = nil, legacyFlag: Bool = false) throws -> [String: Any] {
        let outcome = host.run(
            "xcrun",
            ["xcresulttool", "get"] + (legacyFlag ? ["--legacy"] : []) + ["--format", "json", "--path", bundle]
                + (id.map { ["--id", $0] } ?? []))
        XCTAssertEqual(outcome.status, 0, outcome.stderr)
        XCTAssertFalse(
            outcome.stdout.replacingOccurrences(of: #"\/"#, with: "").contains("/"),
            "slashes escaped, as legacy JSON has them")
        return EmulatorHarness.json(outcome.stdout)
    }

    private static func realSample(_ name: String) throws -> [String: Any] {
        EmulatorHarness.json(
            try String(
                contentsOf: EmulatorHarness.repositoryRoot.appendingPathComponent(
                    "Tests/PipeReportTests/Fixtures/real/xcresult/\(name)"), encoding: .utf8))
    }

    private static func values(_ object: [String: Any]?, _ key: String) -> [[String: Any]] {
        ((object?[key] as? [String: Any])?["_values"] as? [[String: Any]]) ?? []
    }

    private static func text(_ object: [String: Any]?, _ key: String) -> String? {
        (object?[key] as? [String: Any])?["_value"] as? String
    }

    private static func typeName(_ object: [String: Any]?) -> String? {
        (object?["_type"] as? [String: Any])?["_name"] as? String
    }

    func testXcode15sToolHasNoNewCommandsAndNoLegacyFlag() throws {
        try useXcode15()
        let version = host.run("xcrun", ["xcresulttool", "version"])
        XCTAssertEqual(version.stdout, "xcresulttool version 22608, format version 3.49 (current)\n")
        let summary = host.run("xcrun", ["xcresulttool", "get", "test-results", "summary", "--path", "R.xcresult"])
        XCTAssertEqual(summary.status, 64)
        XCTAssertTrue(summary.stderr.hasPrefix("Error: Unexpected argument 'test-results'"), summary.stderr)
        let flag = host.run("xcrun", ["xcresulttool", "get", "--legacy", "--format", "json", "--path", "R.xcresult"])
        XCTAssertEqual(flag.status, 64)
        XCTAssertTrue(flag.stderr.hasPrefix("Error: Unknown option '--legacy'"), flag.stderr)
        let attachments = host.run(
            "xcrun", ["xcresulttool", "export", "attachments", "--path", "R.xcresult", "--output-path", "Out"])
        XCTAssertEqual(attachments.status, 64)
        XCTAssertTrue(attachments.stderr.hasPrefix("Error: Unexpected argument 'attachments'"), attachments.stderr)
    }

    /// Root → `testsRef` → a failed test's `summaryRef` → its attachment's `payloadRef`, as Xcode 15 answers them.
    func testTheGraphLeadsFromTheRootToAFailedTestsScreenshot() throws {
        try useXcode15()
        let bundle = runReader()
        let root = try get(bundle)
        XCTAssertEqual(Self.typeName(root), "ActionsInvocationRecord")
        let action = try XCTUnwrap(Self.values(root, "actions").first)
        let realAction = try XCTUnwrap(
            Self.values(try Self.realSample("xcresultkit-invocation-record.json"), "actions").first)
        XCTAssertTrue(Set(realAction.keys).isSubset(of: Set(action.keys).union(["title"])), "\(action.keys)")
        let actionResult = action["actionResult"] as? [String: Any]
        XCTAssertEqual(Self.text(actionResult, "status"), "failed")
        let failure = try XCTUnwrap(
            Self.values(actionResult?["issues"] as? [String: Any], "testFailureSummaries").first)
        XCTAssertEqual(Self.text(failure, "testCaseName"), "ReadingIDTests.testRejectsEmpty()")
        let metrics = actionResult?["metrics"] as? [String: Any]
        XCTAssertEqual(Self.text(metrics, "testsCount"), "6")
        XCTAssertEqual(Self.text(metrics, "testsFailedCount"), "1")
        XCTAssertEqual(Self.text(metrics, "testsSkippedCount"), "1")

        let testsID = try XCTUnwrap(Self.text((actionResult?["testsRef"] as? [String: Any]), "id"))
        XCTAssertTrue(testsID.hasPrefix("0~"), testsID)
        let tests = try get(bundle, id: testsID)
        XCTAssertEqual(Self.typeName(tests), "ActionTestPlanRunSummaries")
        var leaves: [[String: Any]] = []
        var targets: [String] = []
        func visit(_ node: [String: Any]) {
            if node["testStatus"] != nil { return leaves.append(node) }
            for child in Self.values(node, "subtests") { visit(child) }
        }
        for summary in Self.values(tests, "summaries") {
            for testable in Self.values(summary, "testableSummaries") {
                targets += [Self.text(testable, "targetName") ?? "?"]
                Self.values(testable, "tests").forEach(visit)
            }
        }
        XCTAssertEqual(targets, ["ReaderTests", "ReaderLogicTests"])
        XCTAssertEqual(
            leaves.compactMap { Self.text($0, "identifier") }.sorted(),
            [
                "BoundaryTests/testThirtyTwoCharactersAccepted()", "CheckReadingIDIntentTests/testOpensInSimulator()",
                "CheckReadingIDIntentTests/testPerformReturnsNormalizedID()", "ReadingIDTests/testRejectsEmpty()",
                "ReadingIDTests/testRejectsInnerSpace()", "ReadingIDTests/testTrimsSurroundingWhitespace()",
            ])
        XCTAssertEqual(leaves.filter { Self.text($0, "testStatus") == "Skipped" }.count, 1)
        let failed = try XCTUnwrap(leaves.first { Self.text($0, "testStatus") == "Failure" })
        let summaryID = try XCTUnwrap(Self.text(failed["summaryRef"] as? [String: Any], "id"))

        let detail = try get(bundle, id: summaryID)
        XCTAssertEqual(Self.typeName(detail), "ActionTestSummary")
        XCTAssertTrue(
            Set(try Self.realSample("xcresultkit-test-summary.json").keys).isSubset(of: Set(detail.keys)),
            "\(detail.keys)")
        XCTAssertNotNil(Self.text(Self.values(detail, "failureSummaries").first, "message"))
        let attachments = Self.values(detail, "activitySummaries").flatMap { Self.values($0, "attachments") }
        XCTAssertEqual(attachments.count, 2)
        let screenshot = try XCTUnwrap(attachments.first)
        XCTAssertEqual(Self.text(screenshot, "uniformTypeIdentifier"), "public.png")
        XCTAssertEqual(Self.text(screenshot, "name"), "rejects-empty")
        let payloadID = try XCTUnwrap(Self.text(screenshot["payloadRef"] as? [String: Any], "id"))

        let out = host.folder.appendingPathComponent("shot.png")
        let export = host.run(
            "xcrun",
            [
                "xcresulttool", "export", "--type", "file", "--path", bundle, "--id", payloadID, "--output-path",
                out.path,
            ])
        XCTAssertEqual(export.status, 0, export.stderr)
        XCTAssertEqual(
            try Data(contentsOf: out),
            try Data(contentsOf: workspace.appendingPathComponent("Screenshots/rejects-empty.png")))

        let unknown = host.run(
            "xcrun", ["xcresulttool", "get", "--format", "json", "--path", bundle, "--id", "0~nope"])
        XCTAssertEqual(unknown.status, 1)
    }

    func testXcode16GivesTheSameGraphOnlyWithTheLegacyFlag() throws {
        let bundle = runReader()
        let refused = host.run("xcrun", ["xcresulttool", "get", "--format", "json", "--path", bundle])
        XCTAssertEqual(refused.status, 64)
        XCTAssertTrue(refused.stderr.contains("--legacy flag is required"), refused.stderr)
        let root = try get(bundle, legacyFlag: true)
        XCTAssertEqual(Self.typeName(root), "ActionsInvocationRecord")
        let object = host.run(
            "xcrun", ["xcresulttool", "get", "object", "--legacy", "--format", "json", "--path", bundle])
        XCTAssertEqual(object.status, 0, object.stderr)
    }
}
