import Foundation
import PipeApple
import XCTest

final class ResultBundlePathTests: XCTestCase {
    private let start = Date(timeIntervalSince1970: 1_795_961_592)  // 2026-11-29 14:13:12 UTC

    func testShapeUnderTheRunFolder() throws {
        let path = try ResultBundlePath(
            remoteRunFolder: "pipe-work/runs/20261129-141312-7f3a/", pipeline: "app-intents", layer: "unit-tests",
            startTime: start, runID: "20261129-141312-7f3a", attempt: 1)
        XCTAssertEqual(path.directory, "pipe-work/runs/20261129-141312-7f3a/artifacts")
        XCTAssertEqual(path.fileName, "app-intents-unit-tests-20261129-141312-20261129-141312-7f3a-1.xcresult")
        XCTAssertEqual(
            path.path,
            "pipe-work/runs/20261129-141312-7f3a/artifacts/app-intents-unit-tests-20261129-141312-20261129-141312-7f3a-1.xcresult"
        )
    }

    func testEveryRunLayerAndAttemptGetsItsOwnPath() throws {
        // Same second, same pipeline: only the run id (unique per run, see `RunID.claim`), layer and attempt differ.
        var paths = Set<String>()
        for runNumber in 0..<25 {
            let runID = "20261129-141312-" + String(format: "%04x", runNumber * 2_617 % 65_536)
            for layer in ["logic", "intents", "intents tests", "intents-tests"] {
                for attempt in 1...3 {
                    paths.insert(
                        try ResultBundlePath(
                            remoteRunFolder: "/Users/ci/pipe-work/runs/\(runID)", pipeline: "app-intents", layer: layer,
                            startTime: start, runID: runID, attempt: attempt
                        ).fileName)
                }
            }
        }
        XCTAssertEqual(paths.count, 25 * 4 * 3)
    }

    func testUnsafeCharactersAreReplacedAndDistinctNamesStayDistinct() throws {
        func name(_ layer: String) throws -> String {
            try ResultBundlePath(
                remoteRunFolder: "/w", pipeline: "app intents", layer: layer, startTime: start,
                runID: "20261129-141312-7f3a", attempt: 1
            ).fileName
        }
        let spaced = try name("unit tests")
        let dashed = try name("unit-tests")
        XCTAssertNotEqual(spaced, dashed)
        XCTAssertTrue(dashed.contains("-unit-tests-20261129"), dashed)
        for hostile in ["../../etc", "x'; rm -rf ~", "$(reboot)", "a/b", ".hidden", "-rf", "日本語", "\n"] {
            let fileName = try name(hostile)
            XCTAssertTrue(
                fileName.unicodeScalars.allSatisfy {
                    $0.isASCII
                        && ($0.properties.isAlphabetic || ("0"..."9").contains($0) || "._-".unicodeScalars.contains($0))
                },
                fileName)
            XCTAssertFalse(fileName.contains(".."), fileName)
            XCTAssertFalse(fileName.hasPrefix("-") || fileName.hasPrefix("."), fileName)
        }
        XCTAssertEqual(ResultBundlePath.safeComponent("app-intents_2.1"), "app-intents_2.1")
        XCTAssertEqual(ResultBundlePath.safeComponent("a b").count, "a-b-".count + 8)
    }

    func testInvalidInputsAreTypedErrors() {
        func error(folder: String = "/w", layer: String = "l", runID: String = "r", attempt: Int = 1)
            -> ResultBundlePathError?
        {
            do {
                _ = try ResultBundlePath(
                    remoteRunFolder: folder, pipeline: "p", layer: layer, startTime: start, runID: runID,
                    attempt: attempt)
                return nil
            } catch {
                return error as? ResultBundlePathError
            }
        }
        XCTAssertEqual(error(folder: ""), .emptyRunFolder)
        XCTAssertEqual(error(folder: "/w\nx"), .invalidRunFolder("/w\nx"))
        XCTAssertEqual(error(layer: ""), .emptyComponent("layer"))
        XCTAssertEqual(error(runID: ""), .emptyComponent("run id"))
        XCTAssertEqual(error(attempt: 0), .invalidAttempt(0))
        XCTAssertTrue("\(ResultBundlePathError.invalidAttempt(0))".contains("count from 1"))
    }
}
