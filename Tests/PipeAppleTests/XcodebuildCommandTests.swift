import Foundation
import PipeApple
import XCTest

final class XcodebuildCommandTests: XCTestCase {
    private let destination = XcodebuildCommand.Destination(
        simulatorPlatform: "iOS", udid: "90052AC6-D47D-4B2A-840D-6B5B081260C6")

    func testTestCommandInTheDocumentedOrder() throws {
        let command = try XcodebuildCommand(
            container: .project("Reader.xcodeproj"), scheme: "Reader", destination: destination,
            resultBundlePath: "/tmp/run/artifacts/x.xcresult",
            onlyTesting: ["ReaderTests/ReadingIDTests", "ReaderTests/IntentTests/testPerform"],
            skipTesting: ["ReaderUITests"], testPlan: "Unit", configuration: "Debug",
            buildSettings: [.init("CODE_SIGNING_ALLOWED", "NO"), .init("SWIFT_VERSION", "5.0")])
        XCTAssertEqual(
            command.arguments,
            [
                "xcodebuild", "test", "-project", "Reader.xcodeproj", "-scheme", "Reader", "-destination",
                "platform=iOS Simulator,id=90052AC6-D47D-4B2A-840D-6B5B081260C6", "-resultBundlePath",
                "/tmp/run/artifacts/x.xcresult", "-only-testing:ReaderTests/ReadingIDTests",
                "-only-testing:ReaderTests/IntentTests/testPerform", "-skip-testing:ReaderUITests", "-testPlan", "Unit",
                "-configuration", "Debug", "CODE_SIGNING_ALLOWED=NO", "SWIFT_VERSION=5.0",
            ])
        XCTAssertEqual(
            command.shellLine,
            "xcodebuild test -project Reader.xcodeproj -scheme Reader -destination "
                + "'platform=iOS Simulator,id=90052AC6-D47D-4B2A-840D-6B5B081260C6' -resultBundlePath "
                + "/tmp/run/artifacts/x.xcresult -only-testing:ReaderTests/ReadingIDTests "
                + "-only-testing:ReaderTests/IntentTests/testPerform -skip-testing:ReaderUITests -testPlan Unit "
                + "-configuration Debug 'CODE_SIGNING_ALLOWED=NO' 'SWIFT_VERSION=5.0'")
    }

    func testSharedBuildAndItsTestRunsUseOneDerivedDataFolder() throws {
        let derivedData = "/Users/ci/pipe work/runs/r1/DerivedData/logic+intent"
        let build = try XcodebuildCommand(
            action: .buildForTesting, container: .package, scheme: "Reader", destination: destination,
            resultBundlePath: "/w/artifacts/b.xcresult", configuration: "Debug", derivedDataPath: derivedData)
        XCTAssertEqual(
            build.arguments,
            [
                "xcodebuild", "build-for-testing", "-scheme", "Reader", "-destination",
                "platform=iOS Simulator,id=90052AC6-D47D-4B2A-840D-6B5B081260C6", "-derivedDataPath", derivedData,
                "-resultBundlePath", "/w/artifacts/b.xcresult", "-configuration", "Debug",
            ])
        XCTAssertTrue(
            build.shellLine.contains("-derivedDataPath '/Users/ci/pipe work/runs/r1/DerivedData/logic+intent' "),
            build.shellLine)
        let run = try XcodebuildCommand(
            action: .testWithoutBuilding, container: .package, scheme: "Reader",
            destination: .init(simulatorPlatform: "iOS", udid: "72A5047C-A8D0-4FF6-B858-BD5BC1AC4F2B"),
            resultBundlePath: "/w/artifacts/t.xcresult", onlyTesting: ["ReaderTests/ReadingIDTests"],
            derivedDataPath: derivedData)
        XCTAssertEqual(
            run.shellLine,
            "xcodebuild test-without-building -scheme Reader -destination "
                + "'platform=iOS Simulator,id=72A5047C-A8D0-4FF6-B858-BD5BC1AC4F2B' -derivedDataPath "
                + "'/Users/ci/pipe work/runs/r1/DerivedData/logic+intent' -resultBundlePath /w/artifacts/t.xcresult "
                + "-only-testing:ReaderTests/ReadingIDTests")
        XCTAssertThrowsError(
            try XcodebuildCommand(
                action: .testWithoutBuilding, container: .package, scheme: "Reader", destination: destination,
                resultBundlePath: "t.xcresult", derivedDataPath: "")
        ) { XCTAssertEqual($0 as? XcodebuildCommandError, .emptyValue("-derivedDataPath")) }
    }

    func testWorkspacePackageAndTheOtherActions() throws {
        let workspace = try XcodebuildCommand(
            action: .buildForTesting, container: .workspace("App.xcworkspace"), scheme: "App", destination: destination,
            resultBundlePath: "r.xcresult")
        XCTAssertEqual(
            Array(workspace.arguments.prefix(5)),
            ["xcodebuild", "build-for-testing", "-workspace", "App.xcworkspace", "-scheme"])
        let package = try XcodebuildCommand(
            action: .testWithoutBuilding, container: .package, scheme: "Reader",
            destination: .init(simulatorPlatform: "xrOS", udid: "DEC49069-537B-4766-8D30-3B50E27A9A2C"),
            resultBundlePath: "r.xcresult")
        XCTAssertEqual(
            package.arguments,
            [
                "xcodebuild", "test-without-building", "-scheme", "Reader", "-destination",
                "platform=visionOS Simulator,id=DEC49069-537B-4766-8D30-3B50E27A9A2C", "-resultBundlePath",
                "r.xcresult",
            ])
    }

    /// Hostile values go through a real `/bin/sh`: the shell must hand back exactly the arguments, run nothing.
    func testHostileValuesNeverEscapeTheirQuotesInARealShell() throws {
        let scratch = FileManager.default.temporaryDirectory.appendingPathComponent("pipe-quote-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: scratch, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: scratch) }
        let canary = scratch.appendingPathComponent("ran").path
        let hostile = [
            "My App; touch \(canary)", "Reader's \"App\"", "$(touch \(canary))", "`touch \(canary)`",
            "line one\nline two; touch \(canary)", "tab\there", "glob * ? [a-z] ~root", "-dash", "'", "''\\'",
            "$HOME ${PATH} $((1+1)) \\$", "&& touch \(canary) || true", "| tee \(canary)", "> \(canary)",
            "日本語 スキーム", "#not a comment", "a\rb",
        ]
        for value in hostile {
            let command = try XcodebuildCommand(
                container: .workspace("Work space/\(value).xcworkspace"), scheme: value, destination: destination,
                resultBundlePath: "/tmp/\(value).xcresult", onlyTesting: ["Tests/\(value)"], skipTesting: [value],
                testPlan: value, configuration: value, buildSettings: [.init("OTHER_SWIFT_FLAGS", value)])
            XCTAssertEqual(
                try argumentsSeenByShell(command.shellLine, in: scratch), command.arguments, "value: \(value)")
        }
        XCTAssertFalse(FileManager.default.fileExists(atPath: canary), "a value ran as a command")
    }

    func testInvalidValuesAreRefusedBeforeAnythingRuns() {
        func error(_ make: () throws -> XcodebuildCommand) -> XcodebuildCommandError? {
            do {
                _ = try make()
                return nil
            } catch {
                return error as? XcodebuildCommandError
            }
        }
        XCTAssertEqual(
            error {
                try XcodebuildCommand(container: .package, scheme: "", destination: destination, resultBundlePath: "r")
            },
            .emptyValue("-scheme"))
        XCTAssertEqual(
            error {
                try XcodebuildCommand(
                    container: .project(""), scheme: "S", destination: destination, resultBundlePath: "r")
            },
            .emptyValue("-project"))
        XCTAssertEqual(
            error {
                try XcodebuildCommand(container: .package, scheme: "S", destination: destination, resultBundlePath: "")
            },
            .emptyValue("-resultBundlePath"))
        XCTAssertEqual(
            error {
                try XcodebuildCommand(
                    container: .package, scheme: "S", destination: destination, resultBundlePath: "r",
                    onlyTesting: ["A", ""])
            },
            .emptyValue("-only-testing (entry 2)"))
        // A comma would add a key to the destination specifier.
        XCTAssertEqual(
            error {
                try XcodebuildCommand(
                    container: .package, scheme: "S",
                    destination: .init(simulatorPlatform: "iOS", udid: "X,name=Other"), resultBundlePath: "r")
            },
            .invalidUDID("X,name=Other"))
        // A leading dash would turn the build setting into an option.
        XCTAssertEqual(
            error {
                try XcodebuildCommand(
                    container: .package, scheme: "S", destination: destination, resultBundlePath: "r",
                    buildSettings: [.init("-resultBundlePath /tmp/x", "1")])
            },
            .invalidBuildSettingName("-resultBundlePath /tmp/x"))
        XCTAssertTrue("\(XcodebuildCommandError.invalidUDID("X,name=Other"))".contains("xcrun simctl list"))
    }

    /// Runs `printf '%s\0' <line>` in `/bin/sh` and splits what it prints at NUL bytes.
    /// Runs in `folder`, so a quoting bug that redirects or creates files leaves them in the scratch folder.
    private func argumentsSeenByShell(_ line: String, in folder: URL) throws -> [String] {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/bin/sh")
        process.currentDirectoryURL = folder
        process.arguments = ["-c", "printf '%s\\0' " + line]
        let output = Pipe()
        process.standardOutput = output
        try process.run()
        let data = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        XCTAssertEqual(process.terminationStatus, 0)
        var arguments = data.split(separator: 0, omittingEmptySubsequences: false).map {
            String(decoding: $0, as: UTF8.self)
        }
        if arguments.last == "" { arguments.removeLast() }
        return arguments
    }
}
