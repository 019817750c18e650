import Foundation
import PipeTestSupport
import XCTest

/// What the gate, sign-off and external-plugin end-to-end tests share: a fresh emulated Mac host per test in canned
/// mode, projects for both seed pipelines, and ways to make a canned test fail.
class GateTestCase: XCTestCase {
    var host: EmulatedMacHost!
    var hostState: TemporaryDirectory!

    override func setUpWithError() throws {
        hostState = try TemporaryDirectory(prefix: "pipe-gate-host")
        host = try EmulatedMacHost(name: "mac-1", stateDirectory: hostState.url)
        var config = try host.readConfig()
        config["mode"] = "canned"
        try host.writeConfig(config)
    }

    override func tearDown() {
        host?.stop()
        hostState?.remove()
        super.tearDown()
    }

    /// A project with the repository's `pipelines/app-intents.yml` over `examples/reader-app`.
    func appIntentsProject() throws -> PipeProject {
        try PipeProject(host: host)
    }

    /// A project with the repository's `pipelines/haptics.yml` over `examples/haptics-app` (committed).
    func hapticsProject() throws -> PipeProject {
        let project = try PipeProject(host: host)
        let root = RepositoryPaths.root
        try project.shell(
            "cp \(quoted(root.appendingPathComponent("pipelines/haptics.yml").path)) pipelines/haptics.yml"
                + " && cp -R \(quoted(root.appendingPathComponent("examples/haptics-app").path)) examples/haptics-app"
                + " && rm -rf examples/haptics-app/.build"
                + " && git add -A && git -c user.email=e2e@pipe.test -c user.name=e2e commit -q -m 'haptics'")
        return project
    }

    /// Marks one canned test of `scheme` failed (with a message) and commits the change.
    func failCannedTest(
        _ name: String, scheme: String, workspace: String, in project: PipeProject, file: StaticString = #filePath,
        line: UInt = #line
    ) throws {
        try project.failCannedTest(name, scheme: scheme, workspace: workspace, file: file, line: line)
    }

    /// The newest run's folder.
    func lastRunFolder(_ project: PipeProject, file: StaticString = #filePath, line: UInt = #line) throws -> URL {
        try XCTUnwrap(project.runFolders().last, "no run folder", file: file, line: line)
    }

    /// A JSON file of a run folder as an object.
    func jsonObject(_ url: URL) throws -> [String: Any] {
        try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(contentsOf: url)) as? [String: Any])
    }

    func quoted(_ text: String) -> String { "'" + text.replacingOccurrences(of: "'", with: "'\\''") + "'" }
}
