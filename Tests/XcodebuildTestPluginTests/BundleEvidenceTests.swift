import Foundation
import PipeApple
import PipeCore
import XCTest

@testable import XcodebuildTestPlugin

/// The host-side evidence step: the script that writes `<bundle>.evidence/` and the reading of what came back, which
/// holds a host's folder to plain names, regular files, sizes and counts.
final class BundleEvidenceTests: XCTestCase {
    private var project: URL!
    private var folder: URL!
    private var attachments: URL { folder.appendingPathComponent("attachments") }
    private let png = Data([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A, 0, 0, 0, 13])

    override func setUpWithError() throws {
        project = FileManager.default.temporaryDirectory.appendingPathComponent("pipe-evidence-\(UUID().uuidString)")
        folder = project.appendingPathComponent("artifacts/r/logic/R.xcresult.evidence")
        try FileManager.default.createDirectory(at: attachments, withIntermediateDirectories: true)
    }

    override func tearDown() {
        try? FileManager.default.removeItem(at: project)
        super.tearDown()
    }

    private func entry(_ name: String, failure: Bool) -> [String: Any] {
        ["exportedFileName": name, "suggestedHumanReadableName": name, "isAssociatedWithFailure": failure]
    }

    private func writeManifest(_ entries: [[String: Any]], test: String = "ReaderTests/ReadingIDTests/testEmpty()")
        throws
    {
        let manifest: [[String: Any]] = [["testIdentifier": test, "attachments": entries]]
        try JSONSerialization.data(withJSONObject: manifest).write(
            to: attachments.appendingPathComponent("manifest.json"))
    }

    private func read(coverage: Bool = false) -> BundleEvidence {
        BundleEvidence.read(
            folder, logTests: [TestCaseResult(identifier: "ReadingIDTests/testEmpty()", status: .failed)],
            measuresCoverage: coverage, projectDirectory: project)
    }

    func testTheScriptQuotesTheBundleAndPrintsTheSummaryLast() throws {
        let bundle = try ResultBundlePath(
            remoteRunFolder: "/Users/pipe/it's here", pipeline: "app", layer: "logic", startTime: Date(), runID: "r",
            attempt: 1)
        let script = BundleEvidence.script(bundle: bundle, coverage: true)
        XCTAssertTrue(script.contains("--path '/Users/pipe/it'\\''s here/artifacts/"), script)
        XCTAssertTrue(script.contains("xcrun xccov view --report --json '"), script)
        XCTAssertTrue(script.contains("-size +8192k -delete"), "oversized files never leave the host")
        XCTAssertTrue(
            script.hasSuffix(
                "get test-results summary --path '\(bundle.path.replacingOccurrences(of: "'", with: "'\\''"))'"), script
        )
        XCTAssertFalse(BundleEvidence.script(bundle: bundle, coverage: false).contains("xccov"))
    }

    func testAFailuresScreenshotIsTiedToItsTestWithItsFacts() throws {
        try png.write(to: attachments.appendingPathComponent("A1.png"))
        try Data("log".utf8).write(to: attachments.appendingPathComponent("B2.png"))
        try writeManifest([entry("A1.png", failure: true), entry("B2.png", failure: false)])
        let evidence = read()
        XCTAssertEqual(evidence.notes, [])
        XCTAssertEqual(evidence.artifacts.count, 2)
        let screenshot = evidence.artifacts[0]
        XCTAssertEqual(screenshot.kind, .attachment)
        XCTAssertEqual(screenshot.path, "artifacts/r/logic/R.xcresult.evidence/attachments/A1.png")
        XCTAssertEqual(screenshot.bytes, Int64(png.count))
        XCTAssertEqual(screenshot.sha256?.count, 64)
        XCTAssertEqual(
            screenshot.attachment,
            AttachmentFacts(
                testIdentifier: "ReadingIDTests/testEmpty()", name: "A1.png", claimedType: "image/png",
                detectedType: "image/png", associatedWithFailure: true))
        XCTAssertNil(evidence.artifacts[1].attachment?.detectedType, "a .png name does not make text an image")
    }

    func testNamesLinksSizesAndCountsAreHeldToTheLimits() throws {
        var entries = [
            entry("../escaped.png", failure: true), entry("a/b.png", failure: true), entry("link.png", failure: true),
            entry("manifest.json", failure: true), entry("big.png", failure: true), entry("missing.png", failure: true),
        ]
        try FileManager.default.createSymbolicLink(
            atPath: attachments.appendingPathComponent("link.png").path, withDestinationPath: "manifest.json")
        let big = attachments.appendingPathComponent("big.png")
        XCTAssertTrue(FileManager.default.createFile(atPath: big.path, contents: nil))
        let handle = try FileHandle(forWritingTo: big)
        try handle.truncate(atOffset: UInt64(BundleEvidence.maximumAttachmentBytes + 1))
        try handle.close()
        for index in 0..<25 {
            let name = String(format: "extra-%02d.png", index)
            try png.write(to: attachments.appendingPathComponent(name))
            entries.append(entry(name, failure: false))
        }
        try png.write(to: attachments.appendingPathComponent("failure.png"))
        entries.append(entry("failure.png", failure: true))
        entries.append(entry("failure.png", failure: true))
        try writeManifest(entries)

        let evidence = read()
        XCTAssertEqual(evidence.artifacts.count, BundleEvidence.maximumAttachments)
        XCTAssertEqual(evidence.artifacts.first?.path.hasSuffix("/failure.png"), true, "a failure's comes first")
        XCTAssertEqual(
            evidence.notes,
            [
                "6 of 27 attachments left out: at most 20 are kept, those tied to a failure first",
                "1 attachments left out: each may hold at most 8 MB",
                "6 attachments of the manifest were refused: a name that is not a plain file name, listed twice, "
                    + "or not a regular file in the exported folder",
            ])
        XCTAssertFalse(FileManager.default.fileExists(atPath: big.path), "the oversized file is not kept")
        let kept = try FileManager.default.contentsOfDirectory(atPath: attachments.path).filter {
            $0.hasPrefix("extra-")
        }
        XCTAssertEqual(kept.count, 19, "those past the count are not kept")
    }

    func testBrokenDocumentsAreNotedAndCoverageIsReadOnlyWhenAsked() throws {
        try Data("not json".utf8).write(to: folder.appendingPathComponent("tests.json"))
        try Data("{".utf8).write(to: folder.appendingPathComponent("coverage.json"))
        try Data("{}".utf8).write(to: attachments.appendingPathComponent("manifest.json"))
        let evidence = read(coverage: true)
        XCTAssertEqual(evidence.notes.count, 3, "\(evidence.notes)")
        XCTAssertTrue(evidence.notes[0].hasPrefix("the bundle's test list could not be read: "), evidence.notes[0])
        XCTAssertTrue(evidence.notes[1].hasPrefix("the coverage report could not be read: "), evidence.notes[1])
        XCTAssertTrue(evidence.notes[2].hasPrefix("the attachments were not read: "), evidence.notes[2])
        XCTAssertEqual(read(coverage: false).notes.count, 2, "no coverage asked, none read")
    }

    func testManifestIdentifiersAreMatchedToTheRunsTests() {
        let run = ["ReadingIDTests/testEmpty()", "Outer/Inner/t()"]
        XCTAssertEqual(
            BundleEvidence.runIdentifier("ReaderTests/ReadingIDTests/testEmpty()", among: run),
            "ReadingIDTests/testEmpty()")
        XCTAssertEqual(BundleEvidence.runIdentifier("Target/Outer/Inner/t()", among: run), "Outer/Inner/t()")
        XCTAssertEqual(BundleEvidence.runIdentifier("Other/x()", among: run), "Other/x()")
    }
}
