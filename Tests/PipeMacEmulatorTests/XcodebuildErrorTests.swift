import Foundation
import XCTest

/// The checks `xcodebuild test` makes before any work, with Apple's texts and exit codes (apple-formats.md 4).
final class XcodebuildErrorTests: XCTestCase {
    private var host: EmulatorHarness!
    private var workspace: URL!

    override func setUpWithError() throws {
        host = try EmulatorHarness()
        workspace = try host.copyFixture("canned-reader", as: "reader-app")
    }

    private func test(_ extra: [String], scheme: String? = "Reader", bundle: String = "out/R.xcresult")
        -> EmulatorHarness.Outcome
    {
        var arguments = ["test"]
        if let scheme { arguments += ["-scheme", scheme] }
        arguments += extra + ["-resultBundlePath", bundle]
        return host.run("xcodebuild", arguments, in: workspace)
    }

    private let byID = ["-destination", "platform=iOS Simulator,id=\(EmulatorHarness.iPhone15OnIOS17)"]

    func testVersion() {
        let outcome = host.run("xcodebuild", ["-version"])
        XCTAssertEqual(outcome.status, 0)
        XCTAssertEqual(outcome.stdout, "Xcode 16.2\nBuild version 16C5032a\n")
        XCTAssertEqual(host.run("xcrun", ["xcodebuild", "-version"]).stdout, "Xcode 16.2\nBuild version 16C5032a\n")
    }

    func testSchemeTheHostDoesNotShareIsExit65WithThePackageAsWorkspace() {
        let outcome = test(byID, scheme: "Widgets")
        XCTAssertEqual(outcome.status, 65)
        XCTAssertEqual(
            outcome.stderr,
            "xcodebuild: error: The workspace named \"reader-app\" does not contain a scheme named \"Widgets\". The "
                + "\"-list\" option can be used to find the names of the schemes in the workspace.\n")
        XCTAssertEqual(outcome.stdout, "")
        XCTAssertFalse(FileManager.default.fileExists(atPath: workspace.appendingPathComponent("out").path))
    }

    func testProjectContainerIsNamedAsAProject() throws {
        try FileManager.default.createDirectory(
            at: workspace.appendingPathComponent("Reader.xcodeproj"), withIntermediateDirectories: true)
        let outcome = test(["-project", "Reader.xcodeproj"] + byID, scheme: "Hidden")
        XCTAssertEqual(outcome.status, 65)
        XCTAssertTrue(
            outcome.stderr.hasPrefix(
                "xcodebuild: error: The project named \"Reader\" does not contain a scheme named \"Hidden\"."))
    }

    func testMissingProjectIsExit66() {
        let outcome = test(["-project", "Gone.xcodeproj"] + byID)
        XCTAssertEqual(outcome.status, 66)
        XCTAssertEqual(outcome.stderr, "xcodebuild: error: 'Gone.xcodeproj' does not exist.\n")
    }

    func testSchemeWithoutTestActionIsExit66() throws {
        try host.changeConfig { $0["schemesWithoutTestAction"] = ["Reader"] }
        let outcome = test(byID)
        XCTAssertEqual(outcome.status, 66)
        XCTAssertEqual(
            outcome.stderr, "xcodebuild: error: Scheme Reader is not currently configured for the test action.\n")
    }

    func testUnmatchedDestinationIsExit70AndListsTheHostsSimulators() {
        let outcome = test(["-destination", "platform=iOS Simulator,id=\(EmulatorHarness.unavailableIPhone14)"])
        XCTAssertEqual(outcome.status, 70)
        let lines = outcome.stderr.components(separatedBy: "\n")
        XCTAssertEqual(
            Array(lines.prefix(6)),
            [
                "xcodebuild: error: Unable to find a destination matching the provided destination specifier:",
                "\t\t{ platform:iOS Simulator, id:\(EmulatorHarness.unavailableIPhone14) }",
                "",
                "\tThe requested device could not be found because no available devices matched the request.",
                "",
                "\tAvailable destinations for the \"Reader\" scheme:",
            ])
        XCTAssertTrue(
            lines.contains("\t\t{ platform:iOS Simulator, id:\(EmulatorHarness.iPhone16), OS:18.2, name:iPhone 16 }"))
        XCTAssertTrue(
            lines.contains(
                "\t\t{ platform:iOS Simulator, id:\(EmulatorHarness.iPhone15OnIOS17), OS:17.5, name:iPhone 15 }"))
        XCTAssertEqual(lines.filter { $0.contains("platform:iOS Simulator, id:") && $0.contains("OS:") }.count, 8)
        XCTAssertFalse(outcome.stderr.contains(EmulatorHarness.unavailableIPhone14 + ", OS"))
    }

    func testDestinationByNameAndOS() {
        XCTAssertEqual(test(["-destination", "platform=iOS Simulator,name=iPhone 15,OS=19.0"]).status, 70)
        let matched = test(["-destination", "platform=iOS Simulator,name=iPhone 15,OS=17.5"], scheme: "Reader")
        XCTAssertEqual(matched.status, 65, "the canned Reader scheme has a failing test")
        let summary = host.run(
            "xcrun", ["xcresulttool", "get", "test-results", "summary", "--path", workspace.path + "/out/R.xcresult"])
        XCTAssertTrue(summary.stdout.contains("\"deviceId\" : \"\(EmulatorHarness.iPhone15OnIOS17)\""), summary.stdout)
    }

    func testDestinationByNameAloneTakesTheNewestOS() {
        let outcome = test(["-destination", "platform=iOS Simulator,name=iPhone 15"], scheme: "Reader")
        XCTAssertEqual(outcome.status, 65, outcome.stderr)
        let summary = host.run(
            "xcrun", ["xcresulttool", "get", "test-results", "summary", "--path", workspace.path + "/out/R.xcresult"])
        XCTAssertTrue(summary.stdout.contains("\"deviceId\" : \"\(EmulatorHarness.iPhone15OnIOS18)\""), summary.stdout)
        XCTAssertTrue(summary.stdout.contains("\"osVersion\" : \"18.2\""))
    }

    func testExistingResultBundleIsExit64BeforeAnyWork() throws {
        let existing = workspace.appendingPathComponent("out/R.xcresult")
        try FileManager.default.createDirectory(at: existing, withIntermediateDirectories: true)
        let started = Date()
        let outcome = test(byID)
        XCTAssertEqual(outcome.status, 64)
        XCTAssertEqual(outcome.stderr, "xcodebuild: error: Existing file at -resultBundlePath \"out/R.xcresult\"\n")
        XCTAssertEqual(outcome.stdout, "", "nothing was built or tested")
        XCTAssertLessThan(Date().timeIntervalSince(started), 0.05 + 0.2, "the canned build (0.05 s) never ran")
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: existing.path), [])
        XCTAssertFalse(host.run("simctl", ["list", "devices", "booted"]).stdout.contains("(Booted)"), "nothing booted")
    }

    func testMissingSchemeAndBadOptionsAreUsageErrors() {
        let noScheme = test(byID, scheme: nil)
        XCTAssertEqual(noScheme.status, 64)
        XCTAssertTrue(
            noScheme.stderr.hasPrefix(
                "xcodebuild: error: The test action requires that the name of a scheme in the project is provided"))
        let badOption = host.run("xcodebuild", ["test", "-schema", "Reader"], in: workspace)
        XCTAssertEqual(badOption.status, 64)
        XCTAssertTrue(badOption.stderr.hasPrefix("xcodebuild: error: invalid option '-schema'\n"))
        let noDestination = test([])
        XCTAssertEqual(noDestination.status, 64)
        XCTAssertTrue(noDestination.stderr.contains("-destination 'platform=iOS Simulator,id=<UDID>'"))
    }

    func testFolderWithoutProjectOrPackageIsExit66() throws {
        let empty = host.folder.appendingPathComponent("empty")
        try FileManager.default.createDirectory(at: empty, withIntermediateDirectories: true)
        let outcome = host.run("xcodebuild", ["test", "-scheme", "Reader"] + byID, in: empty)
        XCTAssertEqual(outcome.status, 66)
        XCTAssertEqual(
            outcome.stderr,
            "xcodebuild: error: The directory \(empty.path) does not contain an Xcode project, workspace or package.\n")
    }

    func testListShowsSharedSchemes() {
        let outcome = host.run("xcodebuild", ["-list"], in: workspace)
        XCTAssertEqual(outcome.status, 0)
        XCTAssertTrue(
            outcome.stdout.contains(
                "Information about workspace \"reader-app\":\n    Schemes:\n        Reader\n        Haptics\n"))
    }
}
