import Foundation
import PipeTestSupport
import XCTest

/// `pipe run` end to end with the emulated host in real mode: the example's tests really compile and run on the
/// host (`swift build` + the XCTest binary), into the DerivedData of the run's build cache, as on a Mac.
final class RealRunTests: EmulatedHostTestCase {
    override class var hostMode: String { "real" }

    func testGreenAppIntentsRunRunsTheRealTests() throws {
        let project = try PipeProject(host: host)
        let result = try project.pipe(["run", "app-intents"])
        XCTAssertEqual(result.exitCode, 0, result.combined)
        XCTAssertTrue(
            result.stdout.contains("CheckReadingIDIntentTests/testPerformReturnsTheNormalizedID()"), result.stdout)
        let record = try project.lastRecord()
        for name in ["logic", "intent"] {
            let layerRecord = try XCTUnwrap(layer(name, in: record))
            XCTAssertEqual(layerRecord["outcome"] as? String, "passed", "\(layerRecord)")
            XCTAssertFalse((layerRecord["tests"] as? [Any] ?? []).isEmpty, "tests recorded for \(name)")
        }
        XCTAssertTrue(try sharedBuildLog(of: project).contains("SwiftCompile"), "the first build compiles")

        // The same commit again: the host's build cache holds the products at the same paths, nothing compiles.
        let again = try project.pipe(["run", "app-intents"])
        XCTAssertEqual(again.exitCode, 0, again.combined)
        let warm = try XCTUnwrap(layer("logic", in: try project.lastRecord())?["build"] as? [String: String])
        XCTAssertEqual(warm["state"], "warm", "\(warm)")
        XCTAssertFalse(try sharedBuildLog(of: project).contains("SwiftCompile"), "a warm build compiles nothing")
    }

    /// The log of the newest run's build-for-testing, which logic and intent share.
    private func sharedBuildLog(of project: PipeProject) throws -> String {
        let folder = try XCTUnwrap(project.runFolders().last)
        return try String(
            contentsOf: folder.appendingPathComponent("build-for-testing/logic+intent/xcodebuild.log"), encoding: .utf8)
    }

    func testFailingTestInABrokenCopyExitsOneAndStillBringsBackBundleAndExitCode() throws {
        // A separate repository holding a copy of the example with the length rule broken (31 instead of 32).
        let broken = try TemporaryDirectory(prefix: "pipe-broken-reader")
        defer { broken.remove() }
        let copy = try CommandRunner.shell(
            "cp -R '\(RepositoryPaths.root.path)/examples/reader-app/.' . && rm -rf .build"
                + " && sed -i 's/maximumLength = 32/maximumLength = 31/' Sources/Reader/ReadingID.swift"
                + " && git init -q -b main && git add -A"
                + " && git -c user.email=e2e@pipe.test -c user.name=e2e commit -q -m 'broken length rule'",
            currentDirectory: broken.url)
        XCTAssertEqual(copy.exitCode, 0, copy.combined)
        let pipeline = """
            repository:
              url: \(broken.url.path)
              ref: main
              workspace: .
            simulator:
              device: iPhone 15
            layers:
              logic:
                plugin: xcodebuild-test
                scheme: Reader
                only-testing: [ReaderTests/ReadingIDTests]
                timeout: 10m
            """
        let project = try PipeProject(host: host, pipeline: pipeline)
        let result = try project.pipe(["run", "app-intents"])
        XCTAssertEqual(result.exitCode, 1, result.combined)
        XCTAssertTrue(
            result.stdout.contains("testAcceptsThirtyTwoCharacters"), "the failing test is named:\n\(result.stdout)")
        let record = try project.lastRecord()
        let logic = try XCTUnwrap(layer("logic", in: record))
        XCTAssertEqual(logic["outcome"] as? String, "tests-failed")
        let runFolder = try XCTUnwrap(project.runFolders().last)
        XCTAssertEqual(
            try String(contentsOf: runFolder.appendingPathComponent("logic/exit-code"), encoding: .utf8), "65\n")
        let bundles = try FileManager.default.contentsOfDirectory(
            atPath: runFolder.appendingPathComponent("logic").path
        )
        .filter { $0.hasSuffix(".xcresult") }
        XCTAssertEqual(bundles.count, 1)
        let summaryData = try Data(contentsOf: runFolder.appendingPathComponent("logic/xcresult-summary.json"))
        let summary = try XCTUnwrap(try JSONSerialization.jsonObject(with: summaryData) as? [String: Any])
        XCTAssertEqual(summary["result"] as? String, "Failed")
        let failures = (summary["testFailures"] as? [[String: Any]] ?? []).compactMap { $0["testName"] as? String }
        XCTAssertTrue(failures.contains { $0.contains("testAcceptsThirtyTwoCharacters") }, "\(failures)")
    }
}
