import Foundation
import XCTest

/// `xccov view --report --json` and `xcresulttool export attachments` answer from what a canned run recorded, in the
/// shapes of the real tools (apple-formats.md Part 2 §1–2).
final class EvidenceToolsTests: XCTestCase {
    private var host: EmulatorHarness!
    private var workspace: URL!

    override func setUpWithError() throws {
        host = try EmulatorHarness()
        workspace = try host.copyFixture("canned-reader", as: "reader-app")
    }

    private func runReader(_ extra: [String] = []) -> String {
        host.runCannedReader(in: workspace, extra: extra)
    }

    // MARK: - xccov

    func testTheCoverageReportHasTheKeysOfApplesSample() throws {
        let bundle = runReader(["-enableCodeCoverage", "YES"])
        let outcome = host.run("xcrun", ["xccov", "view", "--report", "--json", bundle])
        XCTAssertEqual(outcome.status, 0, outcome.stderr)
        XCTAssertTrue(outcome.stdout.contains(#""path":"\/"#), "slashes escaped, as xccov writes them")
        let report = EmulatorHarness.json(outcome.stdout)
        let sample = EmulatorHarness.json(
            try String(
                contentsOf: EmulatorHarness.repositoryRoot.appendingPathComponent(
                    "Tests/PipeAppleTests/Fixtures/xccov/report-manpage-xcode11.json"), encoding: .utf8))
        XCTAssertEqual(Set(report.keys), Set(sample.keys))
        let targets = try XCTUnwrap(report["targets"] as? [[String: Any]])
        let sampleTarget = try XCTUnwrap((sample["targets"] as? [[String: Any]])?.first)
        XCTAssertEqual(targets.map { Set($0.keys) }, [Set(sampleTarget.keys), Set(sampleTarget.keys)])
        let files = try XCTUnwrap(targets[0]["files"] as? [[String: Any]])
        let sampleFile = try XCTUnwrap((sampleTarget["files"] as? [[String: Any]])?.first)
        XCTAssertEqual(Set(files[0].keys), Set(sampleFile.keys))

        XCTAssertEqual(targets.map { $0["name"] as? String }, ["Reader.framework", "ReaderTests.xctest"])
        XCTAssertEqual(report["coveredLines"] as? Int, 53)
        XCTAssertEqual(report["executableLines"] as? Int, 70)
        XCTAssertEqual(targets[0]["coveredLines"] as? Int, 23)
        XCTAssertEqual(targets[0]["executableLines"] as? Int, 40)
        XCTAssertEqual(try XCTUnwrap(targets[0]["lineCoverage"] as? Double), 0.575, accuracy: 1e-9)
        XCTAssertEqual(files[0]["name"] as? String, "ReadingID.swift")
        XCTAssertEqual(
            files[0]["path"] as? String, workspace.appendingPathComponent("Sources/Reader/ReadingID.swift").path,
            "a canned path is the workspace's")
    }

    func testOnlyTargetsListsTargetsWithoutFiles() throws {
        let bundle = runReader(["-enableCodeCoverage", "YES"])
        let outcome = host.run("xcrun", ["xccov", "view", "--report", "--only-targets", "--json", bundle])
        XCTAssertEqual(outcome.status, 0, outcome.stderr)
        let targets = try XCTUnwrap(
            try JSONSerialization.jsonObject(with: Data(outcome.stdout.utf8)) as? [[String: Any]])
        XCTAssertEqual(targets.map { $0["name"] as? String }, ["Reader.framework", "ReaderTests.xctest"])
        XCTAssertTrue(targets.allSatisfy { $0["files"] == nil })
    }

    func testWithoutEnableCodeCoverageTheBundleHasNoReport() {
        let bundle = runReader()
        let outcome = host.run("xcrun", ["xccov", "view", "--report", "--json", bundle])
        XCTAssertEqual(outcome.status, 1)
        XCTAssertEqual(outcome.stdout, "")
        XCTAssertTrue(outcome.stderr.contains("has no coverage data"), outcome.stderr)
    }

    func testXccovRefusesWhatItDoesNotEmulate() {
        let text = host.run("xcrun", ["xccov", "view", "--report", "R.xcresult"])
        XCTAssertEqual(text.status, 64)
        XCTAssertTrue(text.stderr.contains("as JSON only"), text.stderr)
        let merge = host.run("xcrun", ["xccov", "merge", "a.xccovreport"])
        XCTAssertEqual(merge.status, 64)
        XCTAssertTrue(merge.stderr.contains("Usage: xccov view"), merge.stderr)
    }

    // MARK: - export attachments

    private func exportAttachments(_ bundle: String, _ extra: [String] = []) throws -> (
        folder: URL, manifest: [[String: Any]]
    ) {
        let folder = host.folder.appendingPathComponent("Out-\(UUID().uuidString)")
        let outcome = host.run(
            "xcrun", ["xcresulttool", "export", "attachments", "--path", bundle, "--output-path", folder.path] + extra)
        XCTAssertEqual(outcome.status, 0, outcome.stderr)
        let text = try String(contentsOf: folder.appendingPathComponent("manifest.json"), encoding: .utf8)
        let manifest = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [[String: Any]])
        return (folder, manifest)
    }

    func testExportWritesTheFilesAndAManifestOfEachTestsAttachments() throws {
        let bundle = runReader()
        let (folder, manifest) = try exportAttachments(bundle)
        let text = try String(contentsOf: folder.appendingPathComponent("manifest.json"), encoding: .utf8)
        XCTAssertTrue(text.contains(#""exportedFileName" : ""#), "pretty-printed with \" : \", as xcresulttool does")
        XCTAssertEqual(
            manifest.map { $0["testIdentifier"] as? String }, ["ReaderTests/ReadingIDTests/testRejectsEmpty()"])
        let attachments = try XCTUnwrap(manifest[0]["attachments"] as? [[String: Any]])
        XCTAssertEqual(attachments.count, 2)
        // The keys real consumers read (bitrise go-xcode `model3/export.go`).
        let known: Set<String> = [
            "exportedFileName", "suggestedHumanReadableName", "isAssociatedWithFailure", "timestamp",
            "configurationName", "deviceName", "deviceId", "repetitionNumber",
        ]
        for attachment in attachments {
            XCTAssertTrue(Set(attachment.keys).isSubset(of: known), "\(attachment.keys)")
            XCTAssertNotNil(attachment["timestamp"] as? Double)
        }
        XCTAssertEqual(attachments.map { $0["isAssociatedWithFailure"] as? Bool }, [true, false])

        let screenshot = try XCTUnwrap(attachments[0]["exportedFileName"] as? String)
        XCTAssertTrue(
            screenshot.hasSuffix(".png") && UUID(uuidString: String(screenshot.dropLast(4))) != nil, screenshot)
        let human = try XCTUnwrap(attachments[0]["suggestedHumanReadableName"] as? String)
        XCTAssertEqual(human, "rejects-empty_0_" + screenshot, "<name>_<index>_<UUID>.<ext>, as Xcode names them")
        XCTAssertEqual(
            try Data(contentsOf: folder.appendingPathComponent(screenshot)),
            try Data(contentsOf: workspace.appendingPathComponent("Screenshots/rejects-empty.png")))
        XCTAssertTrue((attachments[1]["suggestedHumanReadableName"] as? String)?.hasPrefix("input_1_") == true)
        XCTAssertEqual(
            try FileManager.default.contentsOfDirectory(atPath: folder.path).sorted(),
            (attachments.compactMap { $0["exportedFileName"] as? String } + ["manifest.json"]).sorted())
    }

    func testOnlyFailuresAndTestIDNarrowTheExport() throws {
        let bundle = runReader()
        let failures = try exportAttachments(bundle, ["--only-failures"]).manifest
        XCTAssertEqual((failures.first?["attachments"] as? [[String: Any]])?.count, 1)
        let other = try exportAttachments(bundle, ["--test-id", "ReadingIDTests/testTrimsSurroundingWhitespace()"])
        XCTAssertEqual(other.manifest.count, 0)
        let named = try exportAttachments(bundle, ["--test-id", "ReadingIDTests/testRejectsEmpty()"])
        XCTAssertEqual(named.manifest.count, 1)
    }

    func testARunWithoutAttachmentsExportsAnEmptyManifest() throws {
        try host.changeConfig { $0["sharedSchemes"] = ["Reader", "Green"] }
        let outcome = host.run(
            "xcodebuild",
            [
                "test", "-scheme", "Green", "-destination",
                "platform=iOS Simulator,id=\(EmulatorHarness.iPhone15OnIOS17)", "-resultBundlePath", "G.xcresult",
            ], in: workspace)
        XCTAssertEqual(outcome.status, 0, outcome.stderr)
        let export = try exportAttachments(workspace.appendingPathComponent("G.xcresult").path)
        XCTAssertEqual(export.manifest.count, 0)
    }

    func testExportWithoutAnOutputPathIsRefused() {
        let outcome = host.run("xcrun", ["xcresulttool", "export", "attachments", "--path", "R.xcresult"])
        XCTAssertEqual(outcome.status, 64)
        XCTAssertTrue(outcome.stderr.hasPrefix("Error: Missing expected argument"), outcome.stderr)
    }
}
