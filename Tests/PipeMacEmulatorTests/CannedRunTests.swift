import Foundation
import XCTest

/// `xcodebuild test` in canned mode: the console shape of apple-formats.md 3.1–3.9, filtering, the bundle, faults.
final class CannedRunTests: XCTestCase {
    private var host: EmulatorHarness!
    private var workspace: URL!

    override func setUpWithError() throws {
        host = try EmulatorHarness()
        workspace = try host.copyFixture("canned-reader", as: "reader-app")
        try host.changeConfig { $0["sharedSchemes"] = ["Reader", "Haptics", "Green"] }
    }

    private func runTests(
        scheme: String = "Reader", udid: String = EmulatorHarness.iPhone15OnIOS17, bundle: String = "R.xcresult",
        _ extra: [String] = []
    ) -> EmulatorHarness.Outcome {
        host.run(
            "xcodebuild",
            [
                "test", "-scheme", scheme, "-destination", "platform=iOS Simulator,id=\(udid)", "-resultBundlePath",
                bundle,
            ]
                + extra, in: workspace)
    }

    func testFailingRunPrintsXcodesSkeletonAndExits65() throws {
        let outcome = runTests()
        XCTAssertEqual(outcome.status, 65, outcome.stderr)
        let lines = outcome.stdoutLines
        let bundle = workspace.appendingPathComponent("R.xcresult").path
        XCTAssertEqual(lines[0], "Command line invocation:")
        XCTAssertEqual(
            lines[1],
            "    /Applications/Xcode.app/Contents/Developer/usr/bin/xcodebuild test -scheme Reader -destination "
                + "\"platform=iOS Simulator,id=\(EmulatorHarness.iPhone15OnIOS17)\" -resultBundlePath R.xcresult")
        XCTAssertEqual(Array(lines[3...4]), ["Writing result bundle at path:", "\t\(bundle)"])

        let file = workspace.appendingPathComponent("Tests/ReaderTests/ReadingIDTests.swift").path
        let expectedInOrder = [
            "Test Suite 'ReaderTests.xctest' started at ",
            "Test Suite 'ReadingIDTests' started at ",
            "Test Case '-[ReaderTests.ReadingIDTests testTrimsSurroundingWhitespace]' started.",
            "Test Case '-[ReaderTests.ReadingIDTests testTrimsSurroundingWhitespace]' passed (0.002 seconds).",
            "Test Case '-[ReaderTests.ReadingIDTests testRejectsEmpty]' started.",
            "\(file):21: error: -[ReaderTests.ReadingIDTests testRejectsEmpty] : XCTAssertThrowsError failed",
            "Test Case '-[ReaderTests.ReadingIDTests testRejectsEmpty]' failed (0.004 seconds).",
            "Test Case '-[ReaderTests.CheckReadingIDIntentTests testOpensInSimulator]' started.",
            "\(workspace.path)/Tests/ReaderTests/CheckReadingIDIntentTests.swift:30: "
                + "-[ReaderTests.CheckReadingIDIntentTests testOpensInSimulator] : Test skipped - needs the manual layer",
            "Test Case '-[ReaderTests.CheckReadingIDIntentTests testOpensInSimulator]' skipped (0.001 seconds).",
            "\t Executed 5 tests, with 1 test skipped and 1 failure (0 unexpected) in 0.011 (",
            "Test Suite 'ReaderLogicTests.xctest' started at ",
            "Test Suite 'All tests' failed at ",
            "\t Executed 6 tests, with 1 test skipped and 1 failure (0 unexpected) in 0.013 (",
            "Test session results, code coverage, and logs:",
            "\t\(bundle)",
            "Failing tests:",
            "\tReadingIDTests.testRejectsEmpty()",
            "",
            "** TEST FAILED **",
        ]
        var position = 0
        for expected in expectedInOrder {
            guard let found = lines[position...].firstIndex(where: { $0.hasPrefix(expected) }) else {
                XCTFail("missing (in order) line starting with: \(expected)\n\(outcome.stdout)")
                return
            }
            position = found + 1
        }
        let suiteStart = try XCTUnwrap(lines.first { $0.hasPrefix("Test Suite 'All tests' started at ") })
        XCTAssertNotNil(
            suiteStart.range(of: #"started at \d{4}-\d\d-\d\d \d\d:\d\d:\d\d\.\d{3}\.$"#, options: .regularExpression))
        XCTAssertFalse(outcome.stdout.contains("** TEST SUCCEEDED **"))
        XCTAssertTrue(outcome.stderr.contains("IDETestOperationsObserverDebug"))
    }

    func testPassingRunEndsWithTimedSuccessBanner() {
        let outcome = runTests(scheme: "Green")
        XCTAssertEqual(outcome.status, 0, outcome.stderr)
        XCTAssertNotNil(
            outcome.stdout.range(of: #"\n\*\* TEST SUCCEEDED \*\* \[\d+\.\d{3} sec\]\n"#, options: .regularExpression))
        XCTAssertFalse(outcome.stdout.contains("Failing tests:"))
    }

    func testDurationsAreReallySlept() {
        let started = Date()
        XCTAssertEqual(runTests(scheme: "Green").status, 0)
        XCTAssertGreaterThanOrEqual(Date().timeIntervalSince(started), 0.3, "the 0.3 s test took its time")
    }

    func testOnlyTestingFiltersByTargetSuiteAndMethod() {
        func ran(_ extra: [String], bundle: String) -> [String] {
            runTests(bundle: bundle, extra).stdoutLines.filter {
                $0.hasPrefix("Test Case '") && $0.hasSuffix("started.")
            }
            .map {
                $0.replacingOccurrences(of: "Test Case '", with: "").replacingOccurrences(of: "' started.", with: "")
            }
        }
        XCTAssertEqual(
            ran(["-only-testing:ReaderTests/ReadingIDTests"], bundle: "a.xcresult"),
            [
                "-[ReaderTests.ReadingIDTests testTrimsSurroundingWhitespace]",
                "-[ReaderTests.ReadingIDTests testRejectsEmpty]", "-[ReaderTests.ReadingIDTests testRejectsInnerSpace]",
            ])
        XCTAssertEqual(
            ran(
                ["-only-testing:ReaderTests/ReadingIDTests/testRejectsEmpty()", "-only-testing", "ReaderLogicTests"],
                bundle: "b.xcresult"),
            [
                "-[ReaderTests.ReadingIDTests testRejectsEmpty]",
                "-[ReaderLogicTests.BoundaryTests testThirtyTwoCharactersAccepted]",
            ])
        XCTAssertEqual(
            ran(["-only-testing:ReaderTests", "-skip-testing:ReaderTests/ReadingIDTests"], bundle: "c.xcresult"),
            [
                "-[ReaderTests.CheckReadingIDIntentTests testPerformReturnsNormalizedID]",
                "-[ReaderTests.CheckReadingIDIntentTests testOpensInSimulator]",
            ])
        XCTAssertEqual(ran(["-only-testing:ReaderTests/Reading"], bundle: "d.xcresult"), [], "whole components only")
    }

    func testFilteredRunUsesSelectedTestsAndEmptySelectionIsUnknown() throws {
        let outcome = runTests(["-only-testing:ReaderTests/NoSuchSuite"])
        XCTAssertEqual(outcome.status, 0)
        XCTAssertTrue(outcome.stdout.contains("Test Suite 'Selected tests' started at "))
        XCTAssertTrue(outcome.stdout.contains("\t Executed 0 tests, with 0 failures (0 unexpected) in 0.000 ("))
        let summary = host.run(
            "xcrun", ["xcresulttool", "get", "test-results", "summary", "--path", workspace.path + "/R.xcresult"])
        let object = EmulatorHarness.json(summary.stdout)
        XCTAssertEqual(object["result"] as? String, "unknown")
        XCTAssertEqual(object["totalTestCount"] as? Int, 0)
        XCTAssertEqual((object["devicesAndConfigurations"] as? [Any])?.count, 0)
    }

    func testBuildFailureShape() {
        let outcome = runTests(scheme: "Haptics")
        XCTAssertEqual(outcome.status, 65)
        let source = workspace.appendingPathComponent("Sources/Haptics/HapticEvent.swift").path
        XCTAssertTrue(outcome.stdout.contains("\(source):12:9: error: cannot find 'playSuccess' in scope\n"))
        let tail = outcome.stdout.components(separatedBy: "Test session results, code coverage, and logs:\n")
        XCTAssertEqual(tail.count, 2)
        XCTAssertEqual(
            tail[1],
            """
            \t\(workspace.path)/R.xcresult


            Testing failed:
            \tCannot find 'playSuccess' in scope
            \tTesting cancelled because the build failed.

            ** TEST FAILED **


            The following build commands failed:
            \tSwiftCompile normal arm64 Compiling\\ HapticEvent.swift \(source) (in target 'Haptics' from project 'reader-app')
            \tSwiftCompile normal arm64 \(source) (in target 'Haptics' from project 'reader-app')
            (2 failures)

            """)
        XCTAssertFalse(outcome.stdout.contains("Test Case '"))
    }

    func testResultBundleLayoutAndBootedDestination() throws {
        XCTAssertEqual(runTests(scheme: "Green", udid: EmulatorHarness.iPhone16).status, 0)
        let bundle = workspace.appendingPathComponent("R.xcresult")
        let plistData = try Data(contentsOf: bundle.appendingPathComponent("Info.plist"))
        let plist = try XCTUnwrap(
            PropertyListSerialization.propertyList(from: plistData, format: nil) as? [String: Any])
        let version = try XCTUnwrap(plist["version"] as? [String: Any])
        XCTAssertEqual(version["major"] as? Int, 3)
        XCTAssertEqual(version["minor"] as? Int, 53)
        XCTAssertEqual((plist["storage"] as? [String: Any])?["backend"] as? String, "fileBacked2")
        let root = try XCTUnwrap((plist["rootId"] as? [String: Any])?["hash"] as? String)
        XCTAssertTrue(root.hasPrefix("0~") && root.hasSuffix("=="), root)
        let data = try FileManager.default.contentsOfDirectory(atPath: bundle.appendingPathComponent("Data").path)
            .sorted()
        XCTAssertEqual(data, ["data.\(root)", "refs.\(root)"])
        XCTAssertTrue(
            host.run("simctl", ["list", "devices", "booted"]).stdout.contains(
                "iPhone 16 (\(EmulatorHarness.iPhone16)) (Booted) "),
            "xcodebuild boots its destination")
    }

    func testWithoutResultBundlePathTheBundleGoesToDerivedData() throws {
        let outcome = host.run(
            "xcodebuild",
            ["test", "-scheme", "Green", "-destination", "platform=iOS Simulator,id=\(EmulatorHarness.iPhone16)"],
            in: workspace)
        XCTAssertEqual(outcome.status, 0)
        XCTAssertFalse(outcome.stdout.contains("Writing result bundle at path:"))
        let lines = outcome.stdoutLines
        let index = try XCTUnwrap(lines.firstIndex(of: "Test session results, code coverage, and logs:"))
        let path = lines[index + 1]
        let derivedData = host.folder.appendingPathComponent("DerivedData").path
        XCTAssertNotNil(
            path.range(
                of:
                    #"^\t\#(derivedData)/reader-app-[a-p]{28}/Logs/Test/Test-Green-\d{4}\.\d\d\.\d\d_\d\d-\d\d-\d\d-[+-]\d{4}\.xcresult$"#,
                options: .regularExpression), path)
        XCTAssertTrue(FileManager.default.fileExists(atPath: String(path.dropFirst()) + "/Info.plist"))
    }

    func testStartDelayFault() throws {
        try host.changeConfig { $0["faults"] = ["startDelaySeconds": 0.5] }
        let started = Date()
        XCTAssertEqual(runTests(scheme: "Green").status, 0)
        XCTAssertGreaterThanOrEqual(Date().timeIntervalSince(started), 0.5 + 0.3)
    }

    func testDiskFullFaultLeavesNoFinishedBundle() throws {
        try host.changeConfig { $0["faults"] = ["diskFullOnBundle": true] }
        let outcome = runTests(scheme: "Green")
        XCTAssertEqual(outcome.status, 74)
        XCTAssertTrue(outcome.stderr.contains("No space left on device"), outcome.stderr)
        XCTAssertFalse(outcome.stdout.contains("** TEST"), "no banner after a failed save")
        XCTAssertFalse(
            FileManager.default.fileExists(atPath: workspace.appendingPathComponent("R.xcresult/Info.plist").path))
        let summary = host.run(
            "xcrun", ["xcresulttool", "get", "test-results", "summary", "--path", workspace.path + "/R.xcresult"])
        XCTAssertEqual(summary.status, 1)
    }

    func testCrashFaultInProcessStopsWithoutBanner() throws {
        try host.changeConfig { $0["faults"] = ["crashMidTest": 2] }
        let outcome = runTests()
        XCTAssertEqual(outcome.status, 137)
        XCTAssertEqual(outcome.stdoutLines.filter { $0.hasPrefix("Test Case '") && !$0.hasSuffix("started.") }.count, 2)
        XCTAssertFalse(outcome.stdout.contains("** TEST"))
        XCTAssertFalse(outcome.stdout.contains("Test session results"))
    }

    func testMissingCannedFixtureIsAnEmulatorConfigurationError() throws {
        try FileManager.default.removeItem(at: workspace.appendingPathComponent("pipe-canned-results.json"))
        let outcome = runTests()
        XCTAssertEqual(outcome.status, 78)
        XCTAssertTrue(outcome.stderr.contains("pipe-canned-results.json does not exist"), outcome.stderr)
    }
}
