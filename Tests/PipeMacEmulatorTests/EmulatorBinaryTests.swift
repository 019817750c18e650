import Foundation
import XCTest

/// The built `pipe-mac-emulator` as a process: argv[0] dispatch through links, and what only a real process
/// shows — signals, SIGKILL, the child staying in the emulator's process group.
final class EmulatorBinaryTests: XCTestCase {
    private var host: EmulatorHarness!
    private var bin: URL!

    override func setUpWithError() throws {
        host = try EmulatorHarness()
        let binary = try XCTUnwrap(Self.binary(), "build the pipe-mac-emulator product first (swift build)")
        bin = host.folder.appendingPathComponent("bin")
        try FileManager.default.createDirectory(at: bin, withIntermediateDirectories: true)
        for name in ["xcrun", "xcodebuild"] {
            try FileManager.default.createSymbolicLink(
                at: bin.appendingPathComponent(name), withDestinationURL: binary)
        }
    }

    /// Next to the test bundle (same build folder) or in the package's default build folder.
    private static func binary() -> URL? {
        let testBinary = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
        let candidates = [
            testBinary.appendingPathComponent("pipe-mac-emulator"),
            EmulatorHarness.repositoryRoot.appendingPathComponent(".build/debug/pipe-mac-emulator"),
        ]
        return candidates.first { FileManager.default.isExecutableFile(atPath: $0.path) }
    }

    private func launch(_ tool: String, _ arguments: [String], in directory: URL, extra: [String: String] = [:])
        throws -> (Process, URL)
    {
        let process = Process()
        process.executableURL = bin.appendingPathComponent(tool)
        process.arguments = arguments
        process.currentDirectoryURL = directory
        var environment = ProcessInfo.processInfo.environment
        environment["HOME"] = host.home.path
        environment["PIPE_EMULATOR_CONFIG"] = host.configURL.path
        environment.merge(extra) { $1 }
        process.environment = environment
        let log = host.folder.appendingPathComponent("log-\(UUID().uuidString).txt")
        _ = FileManager.default.createFile(atPath: log.path, contents: nil)
        let handle = try FileHandle(forWritingTo: log)
        process.standardOutput = handle
        process.standardError = handle
        try process.run()
        return (process, log)
    }

    private func waitFor(_ text: String, in log: URL, timeout: TimeInterval = 20) -> Bool {
        let deadline = Date().addingTimeInterval(timeout)
        while Date() < deadline {
            if let content = try? String(contentsOf: log, encoding: .utf8), content.contains(text) { return true }
            Thread.sleep(forTimeInterval: 0.05)
        }
        return false
    }

    func testLinksNamedXcrunAndXcodebuildPickTheTool() throws {
        let (listing, log) = try launch("xcrun", ["simctl", "list", "devices", "available", "-j"], in: host.folder)
        listing.waitUntilExit()
        XCTAssertEqual(listing.terminationStatus, 0)
        let devices = EmulatorHarness.json(try String(contentsOf: log, encoding: .utf8))["devices"] as? [String: Any]
        XCTAssertEqual(devices?.count, 3)

        let (version, versionLog) = try launch("xcodebuild", ["-version"], in: host.folder)
        version.waitUntilExit()
        XCTAssertEqual(try String(contentsOf: versionLog, encoding: .utf8), "Xcode 16.2\nBuild version 16C5032a\n")
    }

    func testSIGTERMWhileHangingPrintsInterruptedBanner() throws {
        let workspace = try host.copyFixture("canned-reader", as: "reader-app")
        try host.changeConfig { config in
            config["sharedSchemes"] = ["Green"]
            config["faults"] = ["hangAfterTests": true]
        }
        let (process, log) = try launch(
            "xcodebuild",
            [
                "test", "-scheme", "Green", "-destination", "platform=iOS Simulator,name=iPhone 16",
                "-resultBundlePath", "R.xcresult",
            ], in: workspace)
        XCTAssertTrue(waitFor("Test Suite 'All tests' passed at ", in: log))
        Thread.sleep(forTimeInterval: 0.3)
        XCTAssertTrue(process.isRunning, "the hang fault keeps xcodebuild alive after the tests")
        process.terminate()
        process.waitUntilExit()
        XCTAssertEqual(process.terminationReason, .exit)
        XCTAssertEqual(process.terminationStatus, 128 + SIGTERM)
        let output = try String(contentsOf: log, encoding: .utf8)
        XCTAssertTrue(output.hasSuffix("\n** TEST INTERRUPTED **\n\n"), output)
        XCTAssertFalse(output.contains("** TEST SUCCEEDED **"))
    }

    func testCrashFaultDiesBySIGKILLWithoutBannerOrFinishedBundle() throws {
        let workspace = try host.copyFixture("canned-reader", as: "reader-app")
        try host.changeConfig { $0["faults"] = ["crashMidTest": 1] }
        let (process, log) = try launch(
            "xcodebuild",
            [
                "test", "-scheme", "Reader", "-destination", "platform=iOS Simulator,name=iPhone 16",
                "-resultBundlePath", "R.xcresult",
            ], in: workspace)
        process.waitUntilExit()
        XCTAssertEqual(process.terminationReason, .uncaughtSignal)
        XCTAssertEqual(process.terminationStatus, SIGKILL)
        let output = try String(contentsOf: log, encoding: .utf8)
        XCTAssertTrue(output.contains("testTrimsSurroundingWhitespace]' passed"))
        XCTAssertFalse(output.contains("testRejectsEmpty]' started"))
        XCTAssertFalse(output.contains("** TEST"))
        XCTAssertTrue(FileManager.default.fileExists(atPath: workspace.appendingPathComponent("R.xcresult").path))
        XCTAssertFalse(
            FileManager.default.fileExists(atPath: workspace.appendingPathComponent("R.xcresult/Info.plist").path))
    }

    /// Real mode with a stand-in `swift` that reports its process group and ignored signals, then sleeps: the child
    /// must share the emulator's group (the coordinator kills that group) and must not ignore SIGTERM; a SIGTERM to
    /// the emulator alone stops the child too and prints the build-phase banner.
    func testRealModeChildSharesTheProcessGroupAndDiesWithTheEmulator() throws {
        let package = try host.copyFixture("tiny-package")
        try host.changeConfig { config in
            config["mode"] = "real"
            config["sharedSchemes"] = ["Tiny"]
        }
        let fakeSwift = host.folder.appendingPathComponent("fake-swift")
        try """
        #!/bin/sh
        echo "fake-swift pid=$$ pgid=$(ps -o pgid= -p $$ | tr -d ' ') ignored=$(grep SigIgn /proc/$$/status | cut -f2)"
        exec sleep 60
        """.write(to: fakeSwift, atomically: true, encoding: .utf8)
        try FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: fakeSwift.path)

        let (process, log) = try launch(
            "xcodebuild",
            [
                "test", "-scheme", "Tiny", "-destination", "platform=iOS Simulator,name=iPhone 16",
                "-resultBundlePath", "R.xcresult",
            ], in: package, extra: ["PIPE_EMULATOR_SWIFT": fakeSwift.path])
        XCTAssertTrue(waitFor("ignored=", in: log))
        Thread.sleep(forTimeInterval: 0.1)
        let output = try String(contentsOf: log, encoding: .utf8)
        let report = try XCTUnwrap(output.components(separatedBy: "\n").first { $0.hasPrefix("fake-swift ") })
        let fields = Dictionary(
            uniqueKeysWithValues: report.dropFirst("fake-swift ".count).split(separator: " ").map { field in
                let parts = field.split(separator: "=", maxSplits: 1)
                return (String(parts[0]), String(parts.count > 1 ? parts[1] : ""))
            })
        let childPID = try XCTUnwrap(fields["pid"].flatMap { Int32($0) })
        XCTAssertEqual(fields["pgid"].flatMap { Int32($0) }, getpgid(process.processIdentifier))
        let ignored = try XCTUnwrap(fields["ignored"].flatMap { UInt64($0, radix: 16) })
        XCTAssertEqual(ignored & (1 << UInt64(SIGTERM - 1)), 0, "the child must not inherit an ignored SIGTERM")

        process.terminate()
        process.waitUntilExit()
        XCTAssertEqual(process.terminationStatus, 128 + SIGTERM)
        XCTAssertTrue(try String(contentsOf: log, encoding: .utf8).hasSuffix("\n** BUILD INTERRUPTED **\n\n"))
        let deadline = Date().addingTimeInterval(5)
        while Date() < deadline, Self.isAlive(childPID) { Thread.sleep(forTimeInterval: 0.05) }
        XCTAssertFalse(Self.isAlive(childPID), "the child ended with the emulator")
    }

    /// Alive and not a zombie.
    private static func isAlive(_ pid: Int32) -> Bool {
        guard let status = try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8) else { return false }
        return !status.contains("State:\tZ")
    }
}
