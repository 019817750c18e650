import Foundation
import PipeTestSupport
import XCTest

/// What the controller's end-to-end tests share: a one-layer pipeline on the emulated host, a controller started
/// in the background, and readers of `pipe runs list --json` and `pipe controller status --json`.
class ControllerTestCase: EmulatedHostTestCase {
    /// One layer of the example app's logic tests, in the project's own repository unless `repository` names one.
    func controllerProject(repository: String? = nil, capacity: Int = 1, testSeconds: Double? = nil) throws
        -> PipeProject
    {
        let source = repository.map { "  url: \($0)\n" } ?? ""
        let project = try makeProject(
            pipeline: """
                repository:
                \(source)  workspace: examples/reader-app
                simulator:
                  device: iPhone 15
                layers:
                  logic:
                    plugin: xcodebuild-test
                    scheme: Reader
                    only-testing: [ReaderTests/ReadingIDTests]
                """)
        try project.writeHostsFile(host.hostsFileEntry(capacity: capacity))
        if let testSeconds { try makeFirstTest(of: "ReadingIDTests", take: testSeconds, in: project) }
        return project
    }

    func writeConfig(_ text: String, in project: PipeProject) throws {
        try text.write(to: project.url.appendingPathComponent("controller.yml"), atomically: true, encoding: .utf8)
    }

    /// `pipe controller` in the background, once it has said it started.
    func startController(
        in project: PipeProject, environment: [String: String] = [:], file: StaticString = #filePath, line: UInt = #line
    ) throws -> BackgroundPipe {
        let controller = try BackgroundPipe(
            ["controller", "--config", "controller.yml"], in: project, environment: environment)
        waitUntil("the controller has started", timeout: 30, file: file, line: line) {
            output(of: controller).contains("started with") || !controller.process.isRunning
        }
        return controller
    }

    /// Stops a controller with SIGTERM and returns how it ended.
    @discardableResult
    func stop(
        _ controller: BackgroundPipe, timeout: TimeInterval = 60, file: StaticString = #filePath, line: UInt = #line
    )
        -> BackgroundPipe.Ended
    {
        kill(controller.pid, SIGTERM)
        return controller.wait(timeout: timeout, file: file, line: line)
    }

    func output(of pipe: BackgroundPipe) -> String { pipe.chunks().map(\.text).joined() }

    /// `pipe runs list --json` (every run), of `store` when given.
    func runs(_ project: PipeProject, store: String? = nil) throws -> [[String: Any]] {
        let result = try project.pipe(
            ["runs", "list", "--limit", "all", "--json"] + (store.map { ["--store", $0] } ?? []))
        guard result.exitCode == 0 else { throw EmulatedMacHostError(message: result.combined) }
        return try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [[String: Any]])
    }

    /// `pipe controller status --json`.
    func status(_ project: PipeProject) throws -> [String: Any] {
        let result = try project.pipe(["controller", "status", "--config", "controller.yml", "--json"])
        guard result.exitCode == 0 else { throw EmulatedMacHostError(message: result.combined) }
        return try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any])
    }

    /// `pipe enqueue`, returning the run id it printed.
    func enqueue(_ project: PipeProject, _ arguments: [String] = [], file: StaticString = #filePath, line: UInt = #line)
        throws -> String
    {
        let result = try project.pipe(["enqueue", "app-intents", "--json"] + arguments)
        XCTAssertEqual(result.exitCode, 0, result.combined, file: file, line: line)
        let object = try XCTUnwrap(
            try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any], file: file, line: line)
        return try XCTUnwrap(object["runID"] as? String, file: file, line: line)
    }

    func run(_ runID: String, in runs: [[String: Any]]) -> [String: Any]? {
        runs.first { $0["runID"] as? String == runID }
    }

    func isEnded(_ run: [String: Any]?) -> Bool {
        guard let status = run?["status"] as? String else { return false }
        return ["finished", "cancelled", "interrupted"].contains(status)
    }
}
