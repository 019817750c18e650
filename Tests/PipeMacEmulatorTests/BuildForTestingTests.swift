import Foundation
import XCTest

@testable import PipeMacEmulator

/// `xcodebuild build-for-testing` and `test-without-building` in canned mode: products and `.xctestrun` in derived
/// data, the `TEST BUILD` / `TEST EXECUTE` banners, the build's time spent once, and the refusal without products.
final class BuildForTestingTests: XCTestCase {
    private var host: EmulatorHarness!
    private var workspace: URL!
    private var derivedData: URL { host.folder.appendingPathComponent("run/DerivedData") }

    override func setUpWithError() throws {
        host = try EmulatorHarness()
        workspace = try host.copyFixture("canned-reader", as: "reader-app")
        try host.changeConfig { $0["sharedSchemes"] = ["Reader", "Haptics", "Green"] }
    }

    private func xcodebuild(
        _ action: String, scheme: String = "Green", udid: String = EmulatorHarness.iPhone15OnIOS17,
        bundle: String, _ extra: [String] = []
    ) -> EmulatorHarness.Outcome {
        host.run(
            "xcodebuild",
            [
                action, "-scheme", scheme, "-destination", "platform=iOS Simulator,id=\(udid)", "-derivedDataPath",
                derivedData.path, "-resultBundlePath", bundle,
            ] + extra, in: workspace)
    }

    /// Sets the canned build time of `scheme` in the workspace's copy of the fixture.
    private func setBuildSeconds(_ seconds: Double, scheme: String) throws {
        let url = workspace.appendingPathComponent("pipe-canned-results.json")
        var canned = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(contentsOf: url)) as? [String: Any])
        var schemes = try XCTUnwrap(canned["schemes"] as? [String: Any])
        var entry = try XCTUnwrap(schemes[scheme] as? [String: Any])
        entry["buildSeconds"] = seconds
        schemes[scheme] = entry
        canned["schemes"] = schemes
        try JSONSerialization.data(withJSONObject: canned).write(to: url)
    }

    func testBuildForTestingWritesProductsAndXctestrunAndEndsWithTheTestBuildBanner() throws {
        let outcome = xcodebuild("build-for-testing", bundle: "Build.xcresult")
        XCTAssertEqual(outcome.status, 0, outcome.stderr)
        XCTAssertTrue(outcome.stdout.contains("SwiftCompile normal arm64 Compiling\\ "), outcome.stdout)
        XCTAssertFalse(outcome.stdout.contains("Test Case '"), "build-for-testing runs no test:\n\(outcome.stdout)")
        XCTAssertNotNil(
            outcome.stdout.range(
                of: #"\n\*\* TEST BUILD SUCCEEDED \*\* \[\d+\.\d{3} sec\]\n"#, options: .regularExpression),
            outcome.stdout)
        let products = derivedData.appendingPathComponent("Build/Products")
        let names = try FileManager.default.contentsOfDirectory(atPath: products.path)
        // iPhone15OnIOS17 runs iOS 17.5 in emulator/hosts/default.json.
        XCTAssertTrue(names.contains("Green_iphonesimulator17.5-arm64.xctestrun"), "\(names)")
        let plist = try XCTUnwrap(
            PropertyListSerialization.propertyList(
                from: Data(contentsOf: products.appendingPathComponent("Green_iphonesimulator17.5-arm64.xctestrun")),
                format: nil) as? [String: Any])
        let target = try XCTUnwrap(plist["ReaderTests"] as? [String: Any], "\(plist.keys)")
        XCTAssertEqual(target["TestBundlePath"] as? String, "__TESTROOT__/Debug-iphonesimulator/ReaderTests.xctest")
        XCTAssertTrue(
            FileManager.default.fileExists(
                atPath: products.appendingPathComponent("Debug-iphonesimulator/ReaderTests.xctest").path))
        // The bundle of the build records a build and no tests; the simulator stays as it was (nothing to run).
        XCTAssertTrue(
            FileManager.default.fileExists(atPath: workspace.appendingPathComponent("Build.xcresult/Info.plist").path))
        let list = host.run("xcrun", ["simctl", "list", "devices", "-j"])
        XCTAssertFalse(
            list.stdout.contains("\"state\" : \"Booted\""), "build-for-testing booted a simulator:\n\(list.stdout)")
    }

    func testTestWithoutBuildingRunsOnlyTheTestsOnTheBuiltProducts() throws {
        try setBuildSeconds(1.5, scheme: "Green")
        let buildStarted = Date()
        XCTAssertEqual(xcodebuild("build-for-testing", bundle: "Build.xcresult").status, 0)
        XCTAssertGreaterThanOrEqual(Date().timeIntervalSince(buildStarted), 1.5, "the canned build took its time")

        let testStarted = Date()
        let outcome = xcodebuild("test-without-building", udid: EmulatorHarness.iPhone16, bundle: "T1.xcresult")
        let testSeconds = Date().timeIntervalSince(testStarted)
        XCTAssertEqual(outcome.status, 0, outcome.stderr)
        XCTAssertFalse(outcome.stdout.contains("SwiftCompile"), "nothing is compiled:\n\(outcome.stdout)")
        XCTAssertFalse(outcome.stdout.contains("Prepare packages"), outcome.stdout)
        XCTAssertTrue(outcome.stdout.contains("Test Case '-[ReaderTests."), outcome.stdout)
        XCTAssertNotNil(
            outcome.stdout.range(
                of: #"\n\*\* TEST EXECUTE SUCCEEDED \*\* \[\d+\.\d{3} sec\]\n"#, options: .regularExpression),
            outcome.stdout)
        // The recorded test durations (0.3 s) are slept, the 1.5 s build is not.
        XCTAssertGreaterThanOrEqual(testSeconds, 0.3)
        XCTAssertLessThan(testSeconds, 1.5, "test-without-building spent the build's time again")
        // Another layer's run on the same products: its own fresh bundle.
        let second = xcodebuild(
            "test-without-building", bundle: "T2.xcresult",
            ["-only-testing:ReaderTests/ReadingIDTests/testTrimsSurroundingWhitespace"])
        XCTAssertEqual(second.status, 0, second.stderr)
        for bundle in ["T1.xcresult", "T2.xcresult"] {
            XCTAssertTrue(
                FileManager.default.fileExists(atPath: workspace.appendingPathComponent("\(bundle)/Info.plist").path))
        }
        let log = XcodebuildInvocationLog(configPath: host.configURL.path).lines()
        XCTAssertEqual(log.filter { $0.contains(" build-for-testing ") }.count, 1, "\(log)")
        XCTAssertEqual(log.filter { $0.contains(" test-without-building ") }.count, 2, "\(log)")
    }

    func testTestWithoutBuildingWithNothingBuiltStopsLikeXcode() throws {
        let outcome = xcodebuild("test-without-building", bundle: "T.xcresult")
        XCTAssertEqual(outcome.status, 65)
        XCTAssertTrue(
            outcome.stderr.hasPrefix("xcodebuild: error: There are no test bundles available to test."),
            outcome.stderr)
        XCTAssertTrue(outcome.stderr.contains(derivedData.appendingPathComponent("Build/Products").path))
        XCTAssertFalse(outcome.stdout.contains("Test Case"), outcome.stdout)
        XCTAssertFalse(FileManager.default.fileExists(atPath: workspace.appendingPathComponent("T.xcresult").path))
    }

    func testProductsOfAnotherSchemeDoNotCount() throws {
        XCTAssertEqual(xcodebuild("build-for-testing", scheme: "Reader", bundle: "Build.xcresult").status, 0)
        let outcome = xcodebuild("test-without-building", scheme: "Green", bundle: "T.xcresult")
        XCTAssertEqual(outcome.status, 65, outcome.stdout)
        XCTAssertTrue(outcome.stderr.contains("no .xctestrun for scheme \"Green\""), outcome.stderr)
    }

    func testFailedBuildForTestingPrintsTheTestBuildFailureAndLeavesNoProducts() throws {
        let outcome = xcodebuild("build-for-testing", scheme: "Haptics", bundle: "Build.xcresult")
        XCTAssertEqual(outcome.status, 65)
        let lines = outcome.stdoutLines
        let file = workspace.appendingPathComponent("Sources/Haptics/HapticEvent.swift").path
        XCTAssertTrue(lines.contains("\(file):12:9: error: cannot find 'playSuccess' in scope"), outcome.stdout)
        let banner = try XCTUnwrap(lines.firstIndex(of: "** TEST BUILD FAILED **"), outcome.stdout)
        let commands = try XCTUnwrap(lines.firstIndex(of: "The following build commands failed:"))
        XCTAssertLessThan(banner, commands, "the banner comes before the failed commands, as for xcodebuild build")
        XCTAssertTrue(lines[commands + 1].hasPrefix("\tSwiftCompile normal arm64 Compiling\\ HapticEvent.swift"))
        XCTAssertFalse(outcome.stdout.contains("Testing cancelled because the build failed."), outcome.stdout)
        XCTAssertNil(TestProducts(derivedData: derivedData).xctestrun(scheme: "Haptics"))
        let after = xcodebuild("test-without-building", scheme: "Haptics", bundle: "T.xcresult")
        XCTAssertEqual(after.status, 65)
        XCTAssertTrue(after.stderr.contains("There are no test bundles available to test."), after.stderr)
    }

    func testOneActionAtATime() throws {
        XCTAssertEqual(
            try XcodebuildArguments.parse(["build-for-testing", "-scheme", "S"]).get().actions, ["build-for-testing"])
        let outcome = host.run(
            "xcodebuild", ["build-for-testing", "test-without-building", "-scheme", "Green"], in: workspace)
        XCTAssertEqual(outcome.status, 64)
        XCTAssertTrue(outcome.stderr.contains("asked for: build-for-testing test-without-building"), outcome.stderr)
    }

    /// Real mode: `test-without-building` runs the test binary `build-for-testing` made, without `swift build`, so a
    /// source changed after the build is not seen (one cold build of the tiny package, ~10 s on 2 cores).
    func testRealModeTestWithoutBuildingRunsWhatTheBuildMade() throws {
        try host.changeConfig { config in
            config["mode"] = "real"
            config["sharedSchemes"] = ["Tiny"]
        }
        let package = try host.copyFixture("tiny-package")
        func xcodebuild(_ action: String, _ bundle: String) -> EmulatorHarness.Outcome {
            host.run(
                "xcodebuild",
                [
                    action, "-scheme", "Tiny", "-destination",
                    "platform=iOS Simulator,id=\(EmulatorHarness.iPhone15OnIOS17)", "-derivedDataPath",
                    derivedData.path, "-resultBundlePath", bundle,
                    "-only-testing:TinyTests/DoublerTests/testDoublesTwo",
                ], in: package)
        }
        let nothingBuilt = xcodebuild("test-without-building", "none.xcresult")
        XCTAssertEqual(nothingBuilt.status, 65, nothingBuilt.stdout)
        XCTAssertTrue(nothingBuilt.stderr.contains("There are no test bundles available to test."))

        let build = xcodebuild("build-for-testing", "build.xcresult")
        XCTAssertEqual(build.status, 0, build.stdout + build.stderr)
        XCTAssertTrue(build.stdout.contains("SwiftCompile normal arm64 Compiling\\ Doubler.swift"), build.stdout)
        XCTAssertTrue(build.stdout.contains("** TEST BUILD SUCCEEDED **"), build.stdout)
        XCTAssertNotNil(TestProducts(derivedData: derivedData).xctestrun(scheme: "Tiny"))

        // A change after the build: test-without-building does not compile it, `test` does.
        try "public func double(_ value: Int) -> Int { value * 3 }\n".write(
            to: package.appendingPathComponent("Sources/Tiny/Doubler.swift"), atomically: true, encoding: .utf8)
        let run = xcodebuild("test-without-building", "run.xcresult")
        XCTAssertEqual(run.status, 0, "the built binary still doubles:\n\(run.stdout)\(run.stderr)")
        XCTAssertFalse(run.stdout.contains("SwiftCompile"), run.stdout)
        XCTAssertTrue(run.stdout.contains("Test Case '-[TinyTests.DoublerTests testDoublesTwo]' passed"), run.stdout)
        XCTAssertTrue(run.stdout.contains("** TEST EXECUTE SUCCEEDED **"), run.stdout)
        let rebuilt = xcodebuild("test", "test.xcresult")
        XCTAssertEqual(rebuilt.status, 65, "`test` builds the change:\n\(rebuilt.stdout)")
    }
}
