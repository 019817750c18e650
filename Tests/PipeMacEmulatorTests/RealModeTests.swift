import Foundation
import XCTest

/// Real mode on a tiny Swift package: builds and runs its XCTest for real (one cold build, ~10 s on 2 cores).
final class RealModeTests: XCTestCase {
    func testRealRunTranslatesLinuxXCTestReusesTheBuildAndReportsCompileErrors() throws {
        let host = try EmulatorHarness()
        try host.changeConfig { config in
            config["mode"] = "real"
            config["sharedSchemes"] = ["Tiny"]
        }
        let package = try host.copyFixture("tiny-package")
        let destination = ["-destination", "platform=iOS Simulator,id=\(EmulatorHarness.iPhone15OnIOS17)"]
        func xcodebuild(_ bundle: String, _ extra: [String] = []) -> (EmulatorHarness.Outcome, TimeInterval) {
            let started = Date()
            let outcome = host.run(
                "xcodebuild", ["test", "-scheme", "Tiny"] + destination + ["-resultBundlePath", bundle] + extra,
                in: package)
            return (outcome, Date().timeIntervalSince(started))
        }

        // 1. Cold: compiles, one test passes, one fails; Linux lines arrive in Apple's shape.
        let (first, firstSeconds) = xcodebuild("first.xcresult")
        XCTAssertEqual(first.status, 65, first.stdout + first.stderr)
        let source = package.appendingPathComponent("Sources/Tiny/Doubler.swift").path
        let tests = package.appendingPathComponent("Tests/TinyTests/DoublerTests.swift").path
        XCTAssertTrue(
            first.stdout.contains(
                "SwiftCompile normal arm64 Compiling\\ Doubler.swift \(source) (in target 'Tiny' from project "
                    + "'tiny-package')\n"), first.stdout)
        XCTAssertTrue(first.stdout.contains("Test Suite 'TinyTests.xctest' started at "))
        XCTAssertTrue(first.stdout.contains("Test Case '-[TinyTests.DoublerTests testDoublesTwo]' started.\n"))
        XCTAssertNotNil(
            first.stdout.range(
                of: #"Test Case '-\[TinyTests\.DoublerTests testDoublesTwo\]' passed \(\d\.\d{3} seconds\)\.\n"#,
                options: .regularExpression))
        XCTAssertTrue(
            first.stdout.contains(
                "\(tests):10: error: -[TinyTests.DoublerTests testDoublesThreeWrongly] : XCTAssertEqual failed: "
                    + "(\"6\") is not equal to (\"7\")\n"), first.stdout)
        XCTAssertTrue(
            first.stdout.contains("\nFailing tests:\n\tDoublerTests.testDoublesThreeWrongly()\n\n** TEST FAILED **\n"))
        let summary = EmulatorHarness.json(
            host.run("xcresulttool", ["get", "test-results", "summary", "--path", package.path + "/first.xcresult"])
                .stdout)
        XCTAssertEqual(summary["passedTests"] as? Int, 1)
        XCTAssertEqual(summary["failedTests"] as? Int, 1)
        XCTAssertEqual(
            (summary["testFailures"] as? [[String: Any]])?.first?["testIdentifierString"] as? String,
            "DoublerTests/testDoublesThreeWrongly()")

        // 2. Warm, filtered to the passing test: nothing recompiles, the scratch path under DerivedData is reused.
        let (second, secondSeconds) = xcodebuild(
            "second.xcresult", ["-only-testing:TinyTests/DoublerTests/testDoublesTwo"])
        XCTAssertEqual(second.status, 0, second.stdout + second.stderr)
        XCTAssertFalse(second.stdout.contains("SwiftCompile"), "an unchanged package is not compiled again")
        XCTAssertTrue(second.stdout.contains("Test Suite 'Selected tests' started at "))
        XCTAssertFalse(second.stdout.contains("testDoublesThreeWrongly"))
        XCTAssertLessThan(secondSeconds, firstSeconds)
        // Without -derivedDataPath the build goes to the container's own folder under the host's DerivedData.
        let derivedData = host.folder.appendingPathComponent("DerivedData")
        let folders = try FileManager.default.contentsOfDirectory(atPath: derivedData.path)
        XCTAssertEqual(folders.count, 1, "\(folders)")
        XCTAssertTrue(folders.first?.hasPrefix("tiny-package-") == true, "\(folders)")
        XCTAssertTrue(
            FileManager.default.fileExists(
                atPath: derivedData.appendingPathComponent(
                    "\(folders.first ?? "")/Build/Intermediates.noindex/SwiftPM/debug"
                ).path))

        // 3. A crashing test: Xcode's restart line, the rest relaunched, the crash listed as a failure.
        try """
        import XCTest

        final class CrashTests: XCTestCase {
            func testCrashes() {
                let empty: [Int] = []
                _ = empty[1]
            }
        }

        """.write(
            to: package.appendingPathComponent("Tests/TinyTests/CrashTests.swift"), atomically: true, encoding: .utf8)
        let (crashed, _) = xcodebuild("crashed.xcresult")
        XCTAssertEqual(crashed.status, 65)
        XCTAssertTrue(
            crashed.stdout.contains(
                "Restarting after unexpected exit, crash, or test timeout in CrashTests.testCrashes(); summary will "
                    + "include totals from previous launches.\nTest Suite 'Selected tests' started at "), crashed.stdout
        )
        XCTAssertTrue(crashed.stdout.contains("Test Case '-[TinyTests.DoublerTests testDoublesTwo]' passed ("))
        XCTAssertTrue(
            crashed.stdout.contains(
                "Failing tests:\n\tCrashTests.testCrashes()\n\tDoublerTests.testDoublesThreeWrongly()\n"))
        try FileManager.default.removeItem(at: package.appendingPathComponent("Tests/TinyTests/CrashTests.swift"))

        // 4. A compile error: Xcode's build-failure shape, the compiler's own line kept.
        try "public func double(_ value: Int) -> Int {\n    value * undefinedFactor\n}\n".write(
            toFile: source, atomically: true, encoding: .utf8)
        let (third, _) = xcodebuild("third.xcresult")
        XCTAssertEqual(third.status, 65)
        XCTAssertTrue(
            third.stdout.contains("\(source):2:13: error: cannot find 'undefinedFactor' in scope\n"), third.stdout)
        XCTAssertTrue(
            third.stdout.contains(
                "Testing failed:\n\tCannot find 'undefinedFactor' in scope\n\tTesting cancelled because the build failed."
                    + "\n\n** TEST FAILED **\n\n\nThe following build commands failed:\n\tSwiftCompile normal arm64 "
                    + "Compiling\\ Doubler.swift \(source) (in target 'Tiny' from project 'tiny-package')\n"),
            third.stdout)
        XCTAssertFalse(third.stdout.contains("Test Case '"))
    }

    /// `-enableCodeCoverage YES` in real mode: an instrumented build (one more cold build) whose run xccov reports
    /// from llvm-cov's export: the package's sources and its test bundle, nothing the package manager generated.
    func testRealRunMeasuresCoverageForXccov() throws {
        let host = try EmulatorHarness()
        try host.changeConfig { config in
            config["mode"] = "real"
            config["sharedSchemes"] = ["Tiny"]
        }
        let package = try host.copyFixture("tiny-package")
        let run = host.run(
            "xcodebuild",
            [
                "test", "-scheme", "Tiny", "-destination",
                "platform=iOS Simulator,id=\(EmulatorHarness.iPhone15OnIOS17)", "-resultBundlePath", "c.xcresult",
                "-enableCodeCoverage", "YES",
            ], in: package)
        XCTAssertEqual(run.status, 65, run.stdout + run.stderr)
        let report = host.run("xcrun", ["xccov", "view", "--report", "--json", package.path + "/c.xcresult"])
        XCTAssertEqual(report.status, 0, report.stderr)
        let targets = try XCTUnwrap(EmulatorHarness.json(report.stdout)["targets"] as? [[String: Any]])
        XCTAssertEqual(targets.map { $0["name"] as? String }, ["Tiny.framework", "TinyTests.xctest"])
        XCTAssertEqual(targets[0]["coveredLines"] as? Int, targets[0]["executableLines"] as? Int, "both tests call it")
        XCTAssertGreaterThan(targets[0]["executableLines"] as? Int ?? 0, 0)
        XCTAssertFalse(
            FileManager.default.fileExists(atPath: package.appendingPathComponent("default.profraw").path),
            "no profile is left in the workspace")
    }
}
