import Foundation
import PipeTestSupport
import XCTest

/// `parallel`, `test-timeouts` and `xcodebuild-arguments` reach the host's xcodebuild over real SSH, each word one
/// argument however much shell it holds; an owned flag hidden in a parameter stops the run before it reaches a host.
final class XcodebuildOptionsEndToEndTests: EmulatedHostTestCase {
    private static let pipeline =
        "parameters:\n  language: { default: fr }\n" + oneLogicLayerPipeline + "\n"
        + [
            "share-build: false", "parallel: { workers: 2 }", "test-timeouts: { default: 1m, maximum: 90s }",
            #"xcodebuild-arguments: [-testLanguage, "${language}", -enableCodeCoverage, "YES"]"#,
        ].map { "    \($0)\n" }.joined()

    private func hostLog() -> [String] {
        let base = host.configURL.deletingPathExtension().lastPathComponent
        let url = host.configURL.deletingLastPathComponent().appendingPathComponent("\(base).xcodebuild.log")
        return ((try? String(contentsOf: url, encoding: .utf8)) ?? "").split(separator: "\n").map(String.init)
    }

    func testTheOptionsReachTheHostsXcodebuildAsQuotedWords() throws {
        let project = try makeProject(pipeline: Self.pipeline)
        let before = hostLog().count
        let marker = project.url.appendingPathComponent("pwned")
        let language = "fr; touch \(marker.path)"
        let result = try project.pipe(["run", "app-intents", "--param", "language=\(language)"])
        XCTAssertEqual(result.exitCode, 0, result.combined)
        let lines = hostLog().dropFirst(before)
        XCTAssertEqual(lines.count, 1, "\(lines)")
        let line = try XCTUnwrap(lines.first)
        XCTAssertTrue(
            line.contains(
                " -parallel-testing-enabled YES -parallel-testing-worker-count 2 -test-timeouts-enabled YES "
                    + "-default-test-execution-time-allowance 60 -maximum-test-execution-time-allowance 90 "
                    + "-testLanguage \"\(language)\" -enableCodeCoverage YES"),
            line)
        let runFolder = try XCTUnwrap(project.runFolders().last)
        let log = try String(contentsOf: runFolder.appendingPathComponent("logic/xcodebuild.log"), encoding: .utf8)
        XCTAssertTrue(log.contains("-testLanguage \"\(language)\" -enableCodeCoverage YES"), log)
        XCTAssertFalse(FileManager.default.fileExists(atPath: marker.path), "the argument ran as shell")
    }

    func testAnOwnedFlagInAParameterStopsTheRunBeforeTheHost() throws {
        let project = try makeProject(pipeline: Self.pipeline)
        let before = hostLog().count
        let result = try project.pipe(["run", "app-intents", "--param", "language=-resultBundlePath"])
        XCTAssertNotEqual(result.exitCode, 0, result.combined)
        XCTAssertTrue(
            result.stderr.contains(
                "pipelines/app-intents.yml:15:43: error: layers.logic.xcodebuild-arguments[1]: "
                    + "'-resultBundlePath' is set by Pipe"),
            result.stderr)
        XCTAssertEqual(hostLog().count, before, "nothing ran on the host")
    }
}
