import Foundation
import PipeTestSupport
import XCTest

/// A project folder for one end-to-end test: a real git repository holding the app-intents pipeline and a copy of
/// `examples/reader-app`, with a hosts file naming an emulated Mac host.
final class PipeProject {
    let folder: TemporaryDirectory
    var url: URL { folder.url }

    init(host: EmulatedMacHost, pipeline: String? = nil, knownHosts: URL? = nil) throws {
        folder = try TemporaryDirectory(prefix: "pipe-e2e")
        let root = RepositoryPaths.root
        try FileManager.default.createDirectory(
            at: url.appendingPathComponent("pipelines"), withIntermediateDirectories: true)
        try FileManager.default.createDirectory(
            at: url.appendingPathComponent("examples"), withIntermediateDirectories: true)
        let pipelineText =
            try pipeline
            ?? String(contentsOf: root.appendingPathComponent("pipelines/app-intents.yml"), encoding: .utf8)
        try pipelineText.write(
            to: url.appendingPathComponent("pipelines/app-intents.yml"), atomically: true, encoding: .utf8)
        try shell(
            "cp -R \(quoted(root.appendingPathComponent("examples/reader-app").path)) examples/reader-app"
                + " && rm -rf examples/reader-app/.build")
        try writeHostsFile(host.hostsFileEntry(knownHosts: knownHosts))
        try shell(
            "git init -q -b main && git -c user.email=e2e@pipe.test -c user.name=e2e add -A"
                + " && git -c user.email=e2e@pipe.test -c user.name=e2e commit -q -m 'project under test'")
    }

    func writeHostsFile(_ entries: String) throws {
        try FileManager.default.createDirectory(
            at: url.appendingPathComponent(".pipe"), withIntermediateDirectories: true)
        try ("hosts:\n" + entries).write(
            to: url.appendingPathComponent(".pipe/hosts.yml"), atomically: true, encoding: .utf8)
    }

    /// Commits a change to a file of the project's repository (the run verifies commits, not the work tree).
    func commit(_ path: String, _ text: String, message: String) throws {
        try text.write(to: url.appendingPathComponent(path), atomically: true, encoding: .utf8)
        try shell(
            "git -c user.email=e2e@pipe.test -c user.name=e2e commit -q -am \(quoted(message))")
    }

    /// Runs the built `pipe` in the project folder, as CI would (plain output).
    func pipe(
        _ arguments: [String], environment extra: [String: String] = [:], whileRunning: ((Process) -> Void)? = nil
    )
        throws -> CommandResult
    {
        var environment = ProcessInfo.processInfo.environment
        environment["CI"] = "true"
        environment.removeValue(forKey: "SIM_UDID")
        // What workspace syncs remember stays with this project, not in the user's ~/.cache.
        environment["PIPE_SYNC_STATE"] = url.appendingPathComponent(".pipe/sync-state").path
        for (key, value) in extra { environment[key] = value }
        return try CommandRunner.run(
            RepositoryPaths.pipeBinary, arguments, environment: environment, currentDirectory: url,
            whileRunning: whileRunning)
    }

    /// The run folders under `artifacts/`, oldest first.
    /// The run folders under `artifacts/`, oldest run first. Run ids order runs by the second they started; two
    /// runs within one second (a fast canned run and its rerun) are ordered by the start time in their records
    /// (milliseconds), not by their ids' random suffixes.
    func runFolders() -> [URL] {
        let artifacts = url.appendingPathComponent("artifacts")
        let names = (try? FileManager.default.contentsOfDirectory(atPath: artifacts.path)) ?? []
        func startedAt(_ name: String) -> String {
            let record = artifacts.appendingPathComponent(name).appendingPathComponent("summary.json")
            guard let data = try? Data(contentsOf: record),
                let object = try? JSONSerialization.jsonObject(with: data) as? [String: Any]
            else { return "" }
            return object["startedAt"] as? String ?? ""
        }
        let keyed = names.filter { !$0.hasPrefix(".") }.map {
            (second: $0.prefix(15), started: startedAt($0), name: $0)
        }
        return keyed.sorted { ($0.second, $0.started, $0.name) < ($1.second, $1.started, $1.name) }
            .map { artifacts.appendingPathComponent($0.name) }
    }

    /// The run record of the newest run, as JSON.
    func lastRecord(file: StaticString = #filePath, line: UInt = #line) throws -> [String: Any] {
        let folder = try XCTUnwrap(runFolders().last, "no run folder under artifacts/", file: file, line: line)
        let data = try Data(contentsOf: folder.appendingPathComponent("summary.json"))
        return try XCTUnwrap(try JSONSerialization.jsonObject(with: data) as? [String: Any])
    }

    /// Marks one canned test of `scheme` failed (with a message) and commits the change.
    func failCannedTest(
        _ name: String, scheme: String, workspace: String, file: StaticString = #filePath, line: UInt = #line
    ) throws {
        let path = "\(workspace)/pipe-canned-results.json"
        let data = try Data(contentsOf: url.appendingPathComponent(path))
        var json = try XCTUnwrap(try JSONSerialization.jsonObject(with: data) as? [String: Any])
        var schemes = try XCTUnwrap(json["schemes"] as? [String: Any])
        var entry = try XCTUnwrap(schemes[scheme] as? [String: Any])
        var tests = try XCTUnwrap(entry["tests"] as? [[String: Any]])
        let index = try XCTUnwrap(
            tests.firstIndex { $0["name"] as? String == name }, "no test \(name)", file: file, line: line)
        tests[index]["status"] = "failed"
        tests[index]["message"] = "XCTAssertEqual failed: (\"2\") is not equal to (\"1\")"
        entry["tests"] = tests
        schemes[scheme] = entry
        json["schemes"] = schemes
        let text = String(
            decoding: try JSONSerialization.data(withJSONObject: json, options: [.prettyPrinted, .sortedKeys]),
            as: UTF8.self)
        try commit(path, text, message: "\(name) fails")
    }

    func shell(_ line: String) throws {
        let result = try CommandRunner.shell(line, currentDirectory: url)
        guard result.exitCode == 0 else { throw EmulatedMacHostError(message: "`\(line)` failed:\n\(result.combined)") }
    }

    private func quoted(_ text: String) -> String { "'" + text.replacingOccurrences(of: "'", with: "'\\''") + "'" }

    deinit { folder.remove() }
}

/// Reads a layer's record out of a run record.
func layer(_ name: String, in record: [String: Any]) -> [String: Any]? {
    (record["layers"] as? [[String: Any]])?.first { $0["name"] as? String == name }
}
