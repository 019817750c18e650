import Foundation
import PipeTestSupport
import XCTest

/// What comes back from the Mac besides pass/fail, over real SSH from the emulated Mac in canned mode: a failing
/// test's screenshot lands in the run folder tied to its test, and a layer's `coverage:` minimum judges the layer.
final class EvidenceEndToEndTests: EmulatedHostTestCase {
    private func attempt(_ record: [String: Any]) throws -> [String: Any] {
        let attempts = try XCTUnwrap(layer("logic", in: record)?["attempts"] as? [[String: Any]])
        return try XCTUnwrap(attempts.last)
    }

    func testAFailingTestsScreenshotComesBackTiedToItsTest() throws {
        let project = try makeProject()
        try failWithScreenshot(in: project)
        let result = try project.pipe(["run", "app-intents"])
        XCTAssertEqual(result.exitCode, 1, result.combined)
        let record = try project.lastRecord()
        XCTAssertEqual(layer("logic", in: record)?["outcome"] as? String, "tests-failed")
        let artifacts = try XCTUnwrap(try attempt(record)["artifacts"] as? [[String: Any]])
        let attachments = artifacts.filter { $0["kind"] as? String == "attachment" }
        XCTAssertEqual(attachments.count, 2, "\(artifacts)")
        let screenshot = try XCTUnwrap(attachments.first { ($0["path"] as? String)?.hasSuffix(".png") == true })
        let facts = try XCTUnwrap(screenshot["attachment"] as? [String: Any])
        XCTAssertEqual(facts["testIdentifier"] as? String, "ReadingIDTests/testRejectsEmptyInput()")
        XCTAssertEqual(facts["detectedType"] as? String, "image/png")
        XCTAssertEqual(facts["claimedType"] as? String, "image/png")
        XCTAssertEqual(facts["associatedWithFailure"] as? Bool, true)
        XCTAssertTrue((facts["name"] as? String)?.hasPrefix("empty-field_0_") == true, "\(facts)")

        let runFolder = try XCTUnwrap(project.runFolders().last)
        let path = try XCTUnwrap(screenshot["path"] as? String)
        let file = project.url.appendingPathComponent(path)
        XCTAssertTrue(file.path.hasPrefix(runFolder.path + "/"), "\(file.path) is in the run folder")
        XCTAssertEqual(try Data(contentsOf: file), EmulatedHostTestCase.screenshot)
        XCTAssertEqual(screenshot["bytes"] as? Int, EmulatedHostTestCase.screenshot.count)
        let digest = try CommandRunner.shell("sha256sum \(file.path)", currentDirectory: project.url).stdout
        XCTAssertEqual(screenshot["sha256"] as? String, digest.split(separator: " ").first.map(String.init))

        let junit = try String(contentsOf: runFolder.appendingPathComponent("junit.xml"), encoding: .utf8)
        XCTAssertTrue(junit.contains("[[ATTACHMENT|\(path)]]"), junit)
        let summary = try String(contentsOf: runFolder.appendingPathComponent("summary.md"), encoding: .utf8)
        XCTAssertTrue(summary.contains("  - attached: `\(path)` (image/png, 73 B)"), summary)

        let notes = try XCTUnwrap(attachments.first { ($0["path"] as? String)?.hasSuffix(".swift") == true })
        let notesFacts = try XCTUnwrap(notes["attachment"] as? [String: Any])
        XCTAssertNil(notesFacts["detectedType"], "only PNG and JPEG bytes are ever called images")
        XCTAssertEqual(notesFacts["associatedWithFailure"] as? Bool, false)

        // Serial runs print passing tests without their suite; every test is still named in full, once.
        let tests = try XCTUnwrap(layer("logic", in: record)?["tests"] as? [[String: Any]])
        let identifiers = tests.compactMap { $0["identifier"] as? String }
        XCTAssertEqual(identifiers.count, 12)
        XCTAssertEqual(Set(identifiers).count, 12)
        XCTAssertTrue(identifiers.allSatisfy { $0.hasPrefix("ReadingIDTests/") }, "\(identifiers)")
    }

    /// Xcode 15's xcresulttool has only the legacy object graph: the summary comes from the root record, the tests
    /// from its `testsRef`, and the failed test's screenshot from `export --type file`, tied to its test as on 16.
    func testOnAnXcodeBefore16TheLegacyBundleGivesTheSummaryTestsAndScreenshot() throws {
        var config = try host.readConfig()
        config["xcode"] = ["version": "15.4", "build": "15F31d"]
        try host.writeConfig(config)
        let project = try makeProject()
        try failWithScreenshot(in: project)
        let result = try project.pipe(["run", "app-intents"])
        XCTAssertEqual(result.exitCode, 1, result.combined)
        let record = try project.lastRecord()
        XCTAssertTrue((record["xcode"] as? String)?.hasPrefix("Xcode 15.4") == true, "\(record["xcode"] ?? "")")
        let logic = try XCTUnwrap(layer("logic", in: record))
        XCTAssertEqual(logic["outcome"] as? String, "tests-failed")
        let evidence = try XCTUnwrap(logic["evidence"] as? [String]).joined(separator: "\n")
        XCTAssertFalse(evidence.contains("could not read the result bundle's summary"), evidence)
        XCTAssertFalse(evidence.contains("could not be read"), evidence)

        let artifacts = try XCTUnwrap(try attempt(record)["artifacts"] as? [[String: Any]])
        XCTAssertTrue(
            artifacts.contains { ($0["path"] as? String)?.hasSuffix("/xcresult-root.json") == true }, "\(artifacts)")
        let attachments = artifacts.filter { $0["kind"] as? String == "attachment" }
        XCTAssertEqual(attachments.count, 2, "\(artifacts)")
        let screenshot = try XCTUnwrap(attachments.first { ($0["path"] as? String)?.hasSuffix(".png") == true })
        let facts = try XCTUnwrap(screenshot["attachment"] as? [String: Any])
        XCTAssertEqual(facts["testIdentifier"] as? String, "ReadingIDTests/testRejectsEmptyInput()")
        XCTAssertEqual(facts["detectedType"] as? String, "image/png")
        XCTAssertTrue((facts["name"] as? String)?.hasPrefix("empty-field_0_") == true, "\(facts)")
        let path = try XCTUnwrap(screenshot["path"] as? String)
        XCTAssertEqual(try Data(contentsOf: project.url.appendingPathComponent(path)), EmulatedHostTestCase.screenshot)

        let tests = try XCTUnwrap(logic["tests"] as? [[String: Any]])
        let identifiers = tests.compactMap { $0["identifier"] as? String }
        XCTAssertEqual(identifiers.count, 12)
        XCTAssertEqual(Set(identifiers).count, 12, "the log's and the bundle's names agree")
        let failed = try XCTUnwrap(tests.first { $0["status"] as? String == "failed" })
        XCTAssertEqual(failed["identifier"] as? String, "ReadingIDTests/testRejectsEmptyInput()")
        XCTAssertEqual(failed["failureLocation"] as? String, "ReadingIDTests.swift:21")
    }

    func testCoverageBelowTheMinimumFailsTheLayerWithTheNumbers() throws {
        let project = try makeProject(
            pipeline: Self.oneLogicLayerPipeline + "\n    coverage: { minimum: 80%, targets: [Reader] }\n")
        try editReaderScheme(in: project, message: "coverage") { reader in
            reader["coverage"] = [
                [
                    "name": "Reader.framework",
                    "files": [
                        ["path": "Sources/Reader/ReadingID.swift", "coveredLines": 30, "executableLines": 40],
                        [
                            "path": "Sources/Reader/CheckReadingIDIntent.swift", "coveredLines": 10,
                            "executableLines": 20,
                        ],
                    ],
                ],
                [
                    "name": "ReaderTests.xctest",
                    "files": [
                        ["path": "Tests/ReaderTests/ReadingIDTests.swift", "coveredLines": 9, "executableLines": 9]
                    ],
                ],
            ]
        }
        let result = try project.pipe(["run", "app-intents"])
        XCTAssertEqual(result.exitCode, 1, result.combined)
        let record = try project.lastRecord()
        let logic = try XCTUnwrap(layer("logic", in: record))
        XCTAssertEqual(logic["outcome"] as? String, "tests-failed", "\(logic)")
        let evidence = try XCTUnwrap(logic["evidence"] as? [String])
        XCTAssertEqual(
            evidence.first, "coverage of Reader.framework 66.67% (40/60 lines) is below the minimum 80%", "\(evidence)")
        XCTAssertTrue(result.combined.contains("66.67% (40/60 lines)"), result.combined)
        let attempt = try attempt(record)
        let facts = try XCTUnwrap(attempt["facts"] as? [String: String])
        XCTAssertEqual(facts["coverage.Reader.framework"], "40/60")
        XCTAssertNil(facts["coverage.ReaderTests.xctest"], "a test bundle is measured only when named")
        let artifacts = try XCTUnwrap(attempt["artifacts"] as? [[String: Any]])
        XCTAssertTrue(artifacts.contains { $0["kind"] as? String == "coverage" }, "\(artifacts)")
        let log = try String(
            contentsOf: try XCTUnwrap(project.runFolders().last).appendingPathComponent("logic/xcodebuild.log"),
            encoding: .utf8)
        XCTAssertTrue(log.contains(" -enableCodeCoverage YES"), "coverage: turns coverage on")
        let summary = try String(
            contentsOf: try XCTUnwrap(project.runFolders().last).appendingPathComponent("summary.md"), encoding: .utf8)
        XCTAssertTrue(summary.contains("| logic | `Reader.framework` | 40 / 60 | 66.7% | — |"), summary)

        // The next run of the branch shows the change against this one.
        try editReaderScheme(in: project, message: "more coverage") { reader in
            var targets = try XCTUnwrap(reader["coverage"] as? [[String: Any]])
            targets[0]["files"] = [
                ["path": "Sources/Reader/ReadingID.swift", "coveredLines": 35, "executableLines": 40],
                ["path": "Sources/Reader/CheckReadingIDIntent.swift", "coveredLines": 10, "executableLines": 20],
            ]
            reader["coverage"] = targets
        }
        XCTAssertEqual(try project.pipe(["run", "app-intents"]).exitCode, 1)
        let next = try String(
            contentsOf: try XCTUnwrap(project.runFolders().last).appendingPathComponent("summary.md"), encoding: .utf8)
        XCTAssertTrue(next.contains("| logic | `Reader.framework` | 45 / 60 | 75.0% | +8.3 pp |"), next)
    }

    /// The host's manifest is as hostile as its files: a name that climbs out, a link, a file past the limit and
    /// more attachments than are kept. Each is cut and noted; the layer keeps its verdict, and nothing lands outside
    /// the run folder.
    func testAHostileManifestIsCutAndNotedAndNothingLeavesTheRunFolder() throws {
        let evil = try HostileMacHost(mode: Self.hostMode)
        defer { evil.stop() }
        let project = try makeProject()
        try project.writeHostsFile(evil.host.hostsFileEntry())
        try failWithScreenshot(in: project)
        try evil.plant("hostile-attachments")
        let result = try project.pipe(["run", "app-intents"])
        XCTAssertEqual(result.exitCode, 1, result.combined)
        let record = try project.lastRecord()
        let logic = try XCTUnwrap(layer("logic", in: record))
        XCTAssertEqual(logic["outcome"] as? String, "tests-failed", "the app's failure stands")
        let evidence = try XCTUnwrap(logic["evidence"] as? [String]).joined(separator: "\n")
        XCTAssertTrue(
            evidence.contains(
                "3 attachments of the manifest were refused: a name that is not a plain file name, listed twice, "
                    + "or not a regular file in the exported folder"),
            evidence)
        XCTAssertTrue(evidence.contains("12 of 32 attachments left out: at most 20 are kept"), evidence)
        let artifacts = try XCTUnwrap(try attempt(record)["artifacts"] as? [[String: Any]])
        let attachments = artifacts.filter { $0["kind"] as? String == "attachment" }
        XCTAssertEqual(attachments.count, 20)
        let failing = attachments.filter {
            ($0["attachment"] as? [String: Any])?["associatedWithFailure"] as? Bool == true
        }
        XCTAssertEqual(failing.count, 1, "the one tied to the failure is kept first")
        let paths = attachments.compactMap { $0["path"] as? String }
        XCTAssertFalse(paths.contains { $0.contains("..") || $0.hasSuffix("link.png") || $0.hasSuffix("big.png") })

        let runFolder = try XCTUnwrap(project.runFolders().last)
        let outside = try FileManager.default.subpathsOfDirectory(atPath: project.url.path).filter {
            $0.hasSuffix("escaped.png") && !project.url.appendingPathComponent($0).path.hasPrefix(runFolder.path + "/")
        }
        XCTAssertEqual(outside, [], "a file landed outside the run folder")
        let kept = try FileManager.default.subpathsOfDirectory(atPath: runFolder.path)
        XCTAssertFalse(kept.contains { $0.hasSuffix("big.png") }, "\(kept)")
    }
}

extension EmulatedHostTestCase {
    /// A 2×2 PNG (a real one: signature, IHDR, IDAT, IEND), the screenshot the failing test attaches.
    static let screenshot = Data(
        base64Encoded:
            "iVBORw0KGgoAAAANSUhEUgAAAAIAAAACCAIAAAD91JpzAAAAEElEQVR4nGP4z8AARAwQCgAf7gP9i18U1AAAAABJRU5ErkJggg==")!

    /// Makes `testRejectsEmptyInput` fail with a screenshot (`png`) and a text attachment.
    func failWithScreenshot(in project: PipeProject, png: Data = EmulatedHostTestCase.screenshot) throws {
        let folder = project.url.appendingPathComponent("examples/reader-app/Screenshots")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        try png.write(to: folder.appendingPathComponent("empty.png"))
        try project.shell("git add examples/reader-app/Screenshots")
        try editReaderScheme(in: project, message: "a failing test with a screenshot") { reader in
            var tests = try XCTUnwrap(reader["tests"] as? [[String: Any]])
            let index = try XCTUnwrap(tests.firstIndex { $0["name"] as? String == "testRejectsEmptyInput" })
            tests[index]["status"] = "failed"
            tests[index]["message"] = "XCTAssertThrowsError failed"
            tests[index]["file"] = "Tests/ReaderTests/ReadingIDTests.swift"
            tests[index]["line"] = 21
            tests[index]["attachments"] = [
                ["name": "empty-field", "file": "Screenshots/empty.png"],
                ["name": "notes", "file": "Package.swift", "associatedWithFailure": false],
            ]
            reader["tests"] = tests
        }
    }
}
