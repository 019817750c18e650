import Foundation
import XCTest

/// `xcresulttool` answers from bundles the emulated xcodebuild wrote (apple-formats.md 5).
final class XCResultToolTests: XCTestCase {
    private var host: EmulatorHarness!
    private var workspace: URL!

    override func setUpWithError() throws {
        host = try EmulatorHarness()
        workspace = try host.copyFixture("canned-reader", as: "reader-app")
    }

    private func runReader() -> String {
        host.runCannedReader(in: workspace)
    }

    func testVersion() {
        let outcome = host.run("xcrun", ["xcresulttool", "version"])
        XCTAssertEqual(outcome.status, 0)
        XCTAssertEqual(outcome.stdout, "xcresulttool version 23021, format version 3.53 (current)\n")
    }

    func testSummaryHasXcode16ShapeWithSortedKeys() throws {
        let bundle = runReader()
        let outcome = host.run(
            "xcrun", ["xcresulttool", "get", "test-results", "summary", "--path", bundle, "--format", "json"])
        XCTAssertEqual(outcome.status, 0, outcome.stderr)
        let topKeys = outcome.stdoutLines.filter { $0.hasPrefix("  \"") }.map { String($0.split(separator: "\"")[1]) }
        XCTAssertEqual(
            topKeys,
            [
                "devicesAndConfigurations", "environmentDescription", "expectedFailures", "failedTests", "finishTime",
                "passedTests", "result", "skippedTests", "startTime", "statistics", "testFailures", "title",
                "topInsights", "totalTestCount",
            ])
        XCTAssertTrue(outcome.stdout.contains("  \"statistics\" : [\n\n  ],\n"))
        let summary = EmulatorHarness.json(outcome.stdout)
        XCTAssertEqual(summary["title"] as? String, "Test - Reader")
        XCTAssertEqual(summary["result"] as? String, "Failed")
        XCTAssertEqual(summary["totalTestCount"] as? Int, 6)
        XCTAssertEqual(summary["passedTests"] as? Int, 4)
        XCTAssertEqual(summary["failedTests"] as? Int, 1)
        XCTAssertEqual(summary["skippedTests"] as? Int, 1)
        let start = try XCTUnwrap(summary["startTime"] as? Double)
        let finish = try XCTUnwrap(summary["finishTime"] as? Double)
        XCTAssertLessThanOrEqual(start, finish)
        XCTAssertLessThan(abs(Date().timeIntervalSince1970 - finish), 60)

        let failures = try XCTUnwrap(summary["testFailures"] as? [[String: Any]])
        XCTAssertEqual(failures.count, 1)
        XCTAssertEqual(failures[0]["testIdentifierString"] as? String, "ReadingIDTests/testRejectsEmpty()")
        XCTAssertEqual(failures[0]["testName"] as? String, "testRejectsEmpty()")
        XCTAssertEqual(failures[0]["targetName"] as? String, "ReaderTests")
        XCTAssertEqual(failures[0]["failureText"] as? String, "XCTAssertThrowsError failed")

        let devices = try XCTUnwrap(summary["devicesAndConfigurations"] as? [[String: Any]])
        let device = try XCTUnwrap(devices.first?["device"] as? [String: Any])
        XCTAssertEqual(device["deviceId"] as? String, EmulatorHarness.iPhone15OnIOS17)
        XCTAssertEqual(device["deviceName"] as? String, "iPhone 15")
        XCTAssertEqual(device["osVersion"] as? String, "17.5")
        XCTAssertEqual(device["platform"] as? String, "iOS Simulator")
        XCTAssertEqual(devices.first?["failedTests"] as? Int, 1)
    }

    func testTestsTreeHasPlanBundleSuiteCaseAndFailureNodes() throws {
        let bundle = runReader()
        let outcome = host.run("xcrun", ["xcresulttool", "get", "test-results", "tests", "--path", bundle])
        XCTAssertEqual(outcome.status, 0, outcome.stderr)
        let tree = EmulatorHarness.json(outcome.stdout)
        let plan = try XCTUnwrap((tree["testNodes"] as? [[String: Any]])?.first)
        XCTAssertEqual(plan["nodeType"] as? String, "Test Plan")
        XCTAssertEqual(plan["result"] as? String, "Failed")
        let bundles = try XCTUnwrap(plan["children"] as? [[String: Any]])
        XCTAssertEqual(bundles.map { $0["name"] as? String }, ["ReaderTests", "ReaderLogicTests"])
        XCTAssertEqual(bundles[1]["result"] as? String, "Passed")
        let suites = try XCTUnwrap(bundles[0]["children"] as? [[String: Any]])
        XCTAssertEqual(suites.map { $0["nodeType"] as? String }, ["Test Suite", "Test Suite"])
        let cases = try XCTUnwrap(suites[0]["children"] as? [[String: Any]])
        let failed = try XCTUnwrap(cases.first { $0["name"] as? String == "testRejectsEmpty()" })
        XCTAssertEqual(failed["nodeIdentifier"] as? String, "ReadingIDTests/testRejectsEmpty()")
        XCTAssertEqual(failed["durationInSeconds"] as? Double, 0.004)
        XCTAssertEqual(failed["duration"] as? String, "0.004s")
        XCTAssertEqual(failed["result"] as? String, "Failed")
        let message = try XCTUnwrap((failed["children"] as? [[String: Any]])?.first)
        XCTAssertEqual(message["nodeType"] as? String, "Failure Message")
        XCTAssertEqual(message["name"] as? String, "ReadingIDTests.swift:21: XCTAssertThrowsError failed")
    }

    func testPathThatIsNotABundleFails() throws {
        let outcome = host.run(
            "xcrun",
            ["xcresulttool", "get", "test-results", "summary", "--path", host.folder.path + "/nothing.xcresult"])
        XCTAssertEqual(outcome.status, 1)
        XCTAssertTrue(outcome.stderr.hasPrefix("Error: "), outcome.stderr)
        XCTAssertTrue(
            outcome.stderr.contains("the result bundle might be corrupted or the provided path is not a result bundle"))
        XCTAssertEqual(outcome.stdout, "")
    }

    func testMissingPathAndLegacyCallsAreRefused() {
        let noPath = host.run("xcrun", ["xcresulttool", "get", "test-results", "summary"])
        XCTAssertEqual(noPath.status, 64)
        XCTAssertTrue(noPath.stderr.hasPrefix("Error: Missing expected argument '--path <path>'\n"))
        let legacy = host.run("xcrun", ["xcresulttool", "get", "--format", "json", "--path", "x.xcresult"])
        XCTAssertEqual(legacy.status, 64)
        XCTAssertTrue(
            legacy.stderr.hasPrefix(
                "Error: This command is deprecated and will be removed in a future release, --legacy flag is required"))
    }

    func testBuildFailureBundleSummarizesAsFailedWithoutTests() {
        let outcome = host.run(
            "xcodebuild",
            [
                "test", "-scheme", "Haptics", "-destination", "platform=iOS Simulator,name=iPhone 16",
                "-resultBundlePath", "H.xcresult",
            ], in: workspace)
        XCTAssertEqual(outcome.status, 65)
        let summary = EmulatorHarness.json(
            host.run("xcresulttool", ["get", "test-results", "summary", "--path", workspace.path + "/H.xcresult"])
                .stdout)
        XCTAssertEqual(summary["result"] as? String, "Failed")
        XCTAssertEqual(summary["totalTestCount"] as? Int, 0)
    }
}
