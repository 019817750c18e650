import Foundation
import PipeTestSupport
import XCTest

/// The run page shows what came back from the Mac: a failing test's screenshot inline (served only because its
/// bytes are PNG) and line coverage per target, from a real run against the emulated Mac.
final class WebEvidenceTests: WebPageTestCase {
    func testAFailingTestsScreenshotAndTheCoverageAreOnTheRunPage() throws {
        try start()
        try failWithScreenshot(in: project)
        let pipeline = project.url.appendingPathComponent("pipelines/app-intents.yml")
        let text = try String(contentsOf: pipeline, encoding: .utf8).replacingOccurrences(
            of: "    only-testing: [ReaderTests/ReadingIDTests]\n",
            with: "    only-testing: [ReaderTests/ReadingIDTests]\n    coverage: { targets: [Reader] }\n")
        try project.commit("pipelines/app-intents.yml", text, message: "measure coverage")
        try editReaderScheme(in: project, message: "coverage") { reader in
            reader["coverage"] = [
                [
                    "name": "Reader.framework",
                    "files": [["path": "Sources/Reader/ReadingID.swift", "coveredLines": 30, "executableLines": 40]],
                ]
            ]
        }
        let failing = try project.pipe(["run", "app-intents", "--only", "logic"])
        XCTAssertEqual(failing.exitCode, 1, failing.combined)
        let runID = try lastRunID()
        XCTAssertEqual(try signIn("alice").status, 303)
        let page = try request("runs/\(runID)")
        XCTAssertEqual(page.status, 200)
        let image = try XCTUnwrap(
            page.body.components(separatedBy: "<img class=\"shot\" src=\"").dropFirst().first?.components(
                separatedBy: "\""
            ).first, page.body)
        XCTAssertTrue(image.hasSuffix(".png"), image)
        XCTAssertTrue(page.body.contains("alt=\"screenshot of ReadingIDTests/testRejectsEmptyInput()\""), page.body)
        XCTAssertEqual(page.body.components(separatedBy: "<img class=\"shot\"").count - 1, 1, "the text is no image")
        XCTAssertTrue(page.body.contains("<td>Reader.framework</td><td>30 / 40</td><td>75.0 %</td>"), page.body)

        let shown = try request(String(image.drop { $0 == "/" }))
        XCTAssertEqual(shown.status, 200, shown.body)
        XCTAssertTrue(shown.headers.contains("Content-Type: image/png"), shown.headers)
    }
}
