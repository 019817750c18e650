import Foundation
import PipeMacEmulator
import XCTest

/// One emulated host for one test: a temporary folder with a copy of `emulator/hosts/default.json` (changeable per
/// test), a HOME, copies of fixtures, and the tools run in-process through `Emulator.run`.
final class EmulatorHarness {
    /// What one tool invocation returned.
    struct Outcome {
        let status: Int32
        let stdout: String
        let stderr: String

        var stdoutLines: [String] { stdout.components(separatedBy: "\n") }
    }

    static let repositoryRoot = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .deletingLastPathComponent().deletingLastPathComponent()
    static let fixtures = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Fixtures")

    // UDIDs of emulator/hosts/default.json.
    static let iPhone15OnIOS17 = "90052AC6-D47D-4B2A-840D-6B5B081260C6"
    static let iPhone15OnIOS18 = "72A5047C-A8D0-4FF6-B858-BD5BC1AC4F2B"
    static let iPhone16 = "6195935F-AF57-4AA6-B120-588F74B6A3E1"
    static let unavailableIPhone14 = "B47A0748-7A6B-4C47-837E-87FA975D958D"

    let folder: URL
    let configURL: URL
    let home: URL
    private(set) var config: [String: Any]

    init() throws {
        folder = FileManager.default.temporaryDirectory.appendingPathComponent("pipe-emulator-\(UUID().uuidString)")
        home = folder.appendingPathComponent("home")
        try FileManager.default.createDirectory(at: home, withIntermediateDirectories: true)
        configURL = folder.appendingPathComponent("host.json")
        let defaultConfig = Self.repositoryRoot.appendingPathComponent("emulator/hosts/default.json")
        config = try JSONSerialization.jsonObject(with: Data(contentsOf: defaultConfig)) as! [String: Any]
        config["buildCache"] = folder.appendingPathComponent("DerivedData").path
        try saveConfig()
    }

    deinit {
        try? FileManager.default.removeItem(at: folder)
    }

    /// Rewrites the host config, as the lead's tests do between runs to set up a scenario.
    func changeConfig(_ change: (inout [String: Any]) -> Void) throws {
        change(&config)
        try saveConfig()
    }

    private func saveConfig() throws {
        try JSONSerialization.data(withJSONObject: config, options: [.prettyPrinted]).write(to: configURL)
    }

    /// A fresh copy of `Fixtures/<name>` inside the temporary folder.
    func copyFixture(_ name: String, as copyName: String? = nil) throws -> URL {
        let target = folder.appendingPathComponent(copyName ?? name)
        try FileManager.default.copyItem(at: Self.fixtures.appendingPathComponent(name), to: target)
        return target
    }

    /// Runs `program` (its basename picks the tool) in-process.
    /// Runs the canned Reader scheme's tests (one of them fails) into `R.xcresult` in `workspace`; returns the
    /// bundle's path.
    func runCannedReader(in workspace: URL, extra: [String] = [], file: StaticString = #filePath, line: UInt = #line)
        -> String
    {
        let outcome = run(
            "xcodebuild",
            [
                "test", "-scheme", "Reader", "-destination",
                "platform=iOS Simulator,id=\(Self.iPhone15OnIOS17)", "-resultBundlePath", "R.xcresult",
            ] + extra, in: workspace)
        XCTAssertEqual(outcome.status, 65, outcome.stderr, file: file, line: line)
        return workspace.appendingPathComponent("R.xcresult").path
    }

    func run(
        _ program: String, _ arguments: [String], in directory: URL? = nil, environment extra: [String: String] = [:]
    ) -> Outcome {
        var environment = ProcessInfo.processInfo.environment.merging(extra) { $1 }
        environment["HOME"] = home.path
        environment[Emulator.configEnvironmentKey] = configURL.path
        let stdout = EmulatorOutput.memory()
        let stderr = EmulatorOutput.memory()
        let status = Emulator.run(
            arguments: [program] + arguments, environment: environment, currentDirectory: directory ?? folder,
            stdout: stdout, stderr: stderr)
        return Outcome(status: status, stdout: stdout.text, stderr: stderr.text)
    }

    /// Parses JSON output, failing the test when it is not JSON.
    static func json(_ text: String, file: StaticString = #filePath, line: UInt = #line) -> [String: Any] {
        guard let object = try? JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any] else {
            XCTFail("not a JSON object:\n\(text)", file: file, line: line)
            return [:]
        }
        return object
    }
}
