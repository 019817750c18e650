import Foundation
import PipeTestSupport
import XCTest

/// `pipe report` over what a run brought back (its log, the bundle's summary and tests) names and judges every test
/// as the run did, so `pipe runs history` keeps one line per test whichever of them recorded it (issue 18 §7).
final class ReportAgreesWithRunTests: EmulatedHostTestCase {
    private let pipeline = """
        repository:
          workspace: examples/reader-app
        simulator:
          device: iPhone 15
        layers:
          logic:
            plugin: xcodebuild-test
            scheme: Reader
            timeout: 2m
        """

    private struct Judged: Equatable {
        var outcome: String?
        var tests: [String]
    }

    /// The layer's outcome and its tests as `identifier status location`, sorted.
    private func judged(_ layer: [String: Any]?) -> Judged {
        let tests = (layer?["tests"] as? [[String: Any]] ?? []).map { test in
            [test["identifier"], test["status"], test["failureLocation"]].map { ($0 as? String) ?? "-" }
                .joined(separator: " ")
        }
        return Judged(outcome: layer?["outcome"] as? String, tests: tests.sorted())
    }

    private func report(_ inputs: [String], in project: PipeProject, output: String) throws -> [String: Any]? {
        let result = try project.pipe(["report"] + inputs + ["--layer", "logic", "--summary", output])
        XCTAssertEqual(result.exitCode, 1, result.combined)
        let data = try Data(contentsOf: project.url.appendingPathComponent(output))
        let record = try XCTUnwrap(try JSONSerialization.jsonObject(with: data) as? [String: Any])
        return layer("logic", in: record)
    }

    func testTheReportOfARunsLogAndBundleNamesAndJudgesEveryTestAsTheRunDid() throws {
        let project = try makeProject(pipeline: pipeline)
        try editCannedTests(in: project, message: "a failing test in each suite") { tests in
            for suite in ["ReadingIDTests", "CheckReadingIDIntentTests"] {
                let index = try XCTUnwrap(tests.lastIndex { $0["suite"] as? String == suite })
                tests[index]["status"] = "failed"
                tests[index]["message"] = "XCTAssertEqual failed: (\"a\") is not equal to (\"b\")"
                tests[index]["file"] = "Tests/ReaderTests/\(suite).swift"
                tests[index]["line"] = 40
            }
        }
        let run = try project.pipe(["run", "app-intents"])
        XCTAssertEqual(run.exitCode, 1, run.combined)
        let byTheRun = judged(layer("logic", in: try project.lastRecord()))
        XCTAssertEqual(byTheRun.tests.count, 19, "every test of the scheme: \(byTheRun.tests)")
        XCTAssertEqual(byTheRun.tests.filter { $0.contains(" failed ") }.count, 2, "\(byTheRun.tests)")

        let folder = try XCTUnwrap(project.runFolders().last).appendingPathComponent("logic")
        let relative = { (name: String) in
            folder.appendingPathComponent(name).path.replacingOccurrences(of: project.url.path + "/", with: "")
        }
        let evidenceFolder = try XCTUnwrap(
            try FileManager.default.contentsOfDirectory(atPath: folder.path).first {
                $0.hasSuffix(".xcresult.evidence")
            },
            "the bundle's evidence folder came back")
        let log = ["--log", relative("xcodebuild.log"), "--exit-code", "65"]
        let bundle = [
            "--summary-json", relative("xcresult-summary.json"),
            "--tests-json", relative("\(evidenceFolder)/tests.json"),
        ]

        XCTAssertEqual(judged(try report(log + bundle, in: project, output: "both.json")), byTheRun)
        XCTAssertEqual(
            judged(try report(log, in: project, output: "log.json")).tests.map(name), byTheRun.tests.map(name),
            "the log alone names the tests as the run did")
        XCTAssertEqual(
            judged(try report(bundle, in: project, output: "bundle.json")).tests.map(name),
            byTheRun.tests.map(name), "the bundle alone names the tests as the run did")
    }

    /// `identifier status`: what history keys a test by, and its verdict.
    private func name(_ line: String) -> String {
        line.split(separator: " ").prefix(2).joined(separator: " ")
    }
}
