import Foundation
import XCTest

@testable import PipeMacEmulator

/// The emulated `xcodebuild` takes the parallel-testing and test-timeout options Pipe passes, checks their values
/// and records each argument in the host's xcodebuild log as one quoted word.
final class EmulatorTestOptionsTests: XCTestCase {
    private var host: EmulatorHarness!
    private var workspace: URL!

    override func setUpWithError() throws {
        host = try EmulatorHarness()
        workspace = try host.copyFixture("canned-reader", as: "reader-app")
        try host.changeConfig { $0["sharedSchemes"] = ["Reader", "Green"] }
    }

    private func test(_ extra: [String]) -> EmulatorHarness.Outcome {
        host.run(
            "xcodebuild",
            [
                "test", "-scheme", "Green", "-destination",
                "platform=iOS Simulator,id=\(EmulatorHarness.iPhone15OnIOS17)",
            ]
                + extra + ["-resultBundlePath", "out/R.xcresult"], in: workspace)
    }

    func testParallelAndTimeoutOptionsAreTakenAndRecordedAsGiven() throws {
        let options = [
            "-parallel-testing-enabled", "YES", "-parallel-testing-worker-count", "3", "-test-timeouts-enabled", "YES",
            "-default-test-execution-time-allowance", "60", "-maximum-test-execution-time-allowance", "300",
            "-testLanguage", "fr; rm -rf ~",
        ]
        let outcome = test(options)
        XCTAssertEqual(outcome.status, 0, outcome.stdout)
        XCTAssertTrue(outcome.stdout.contains("-parallel-testing-worker-count 3 "), outcome.stdout)
        let parsed = try XcodebuildArguments.parse(options).get()
        XCTAssertEqual(parsed.testOptions["-parallel-testing-worker-count"], "3")
        XCTAssertEqual(parsed.testOptions["-maximum-test-execution-time-allowance"], "300")
        let log = XcodebuildInvocationLog(configPath: host.configURL.path).lines()
        XCTAssertEqual(log.count, 1, "\(log)")
        XCTAssertTrue(
            log[0].contains(
                " test -scheme Green -destination \"platform=iOS Simulator,id=\(EmulatorHarness.iPhone15OnIOS17)\" "
                    + options.dropLast(2).joined(separator: " ") + " -testLanguage \"fr; rm -rf ~\" "),
            log[0])
    }

    func testAValueXcodebuildWouldNotTakeStopsBeforeAnyWork() {
        for (option, value) in [
            ("-parallel-testing-enabled", "yes please"), ("-parallel-testing-worker-count", "0"),
            ("-test-iterations", "many"),
        ] {
            let outcome = test([option, value])
            XCTAssertEqual(outcome.status, 64, option)
            XCTAssertTrue(outcome.stderr.hasPrefix("xcodebuild: error: option '\(option)' takes "), outcome.stderr)
            XCTAssertFalse(FileManager.default.fileExists(atPath: workspace.appendingPathComponent("out").path))
        }
        XCTAssertEqual(XcodebuildInvocationLog(configPath: host.configURL.path).lines(), [])
    }
}
