import Foundation
import PipeBasics
import PipeCore
import PipeStore
import PipeTestSupport
import XCTest

@testable import PipeCLI

/// `pipe __complete` answers from the command tree and the project folder: commands, options, option values,
/// pipelines and layers (from pipelines/), hosts (the hosts file) and run ids (the SQLite store).
final class CompletionTests: XCTestCase {
    private var folder: TemporaryDirectory!

    override func setUpWithError() throws {
        folder = try TemporaryDirectory(prefix: "pipe-complete")
        let pipelines = folder.appending("pipelines")
        try FileManager.default.createDirectory(at: pipelines, withIntermediateDirectories: true)
        // Pipe's own pipeline: layers event-spec, trigger-timing and device.
        try FileManager.default.copyItem(
            at: RepositoryPaths.root.appendingPathComponent("pipelines/haptics.yml"),
            to: pipelines.appendingPathComponent("haptics.yml"))
        try "layers: [not, a, mapping\n".write(
            to: pipelines.appendingPathComponent("broken.yml"), atomically: true, encoding: .utf8)
        try FileManager.default.createDirectory(at: folder.appending(".pipe"), withIntermediateDirectories: true)
        try """
        hosts:
          - { name: mac-1, address: 127.0.0.1, user: pipe, use-agent: true, known-hosts: known_hosts }
          - { name: mac-2, address: 127.0.0.2, user: pipe, use-agent: true, known-hosts: known_hosts }

        """.write(to: folder.appending(".pipe/hosts.yml"), atomically: true, encoding: .utf8)
    }

    override func tearDown() {
        folder?.remove()
    }

    /// The candidates (descriptions dropped) for `words`, the last being the word under the cursor.
    private func complete(_ words: String...) -> [String] {
        let engine = CompletionEngine(
            root: PipeCommandLine.root, names: CompletionNames(currentDirectory: folder.url, environment: [:]))
        return engine.complete(words).map { String($0.prefix { $0 != "\t" }) }
    }

    func testCommandsAndSubcommandsComeFromTheTree() {
        XCTAssertEqual(complete("ru"), ["run", "runs"])
        XCTAssertEqual(complete("runs", "li"), ["list"])
        XCTAssertTrue(complete("").contains("completions"))
        XCTAssertFalse(complete("").contains(CompletionsCommand.hiddenCommand), "the hidden command stays hidden")
        XCTAssertEqual(complete("nosuch", ""), [], "after an unknown command there is nothing to offer")
    }

    func testOptionsIncludeTheParentsAndHelp() {
        let options = complete("gate", "--")
        for option in ["--for", "--project-dir", "--store", "--help"] { XCTAssertTrue(options.contains(option)) }
        XCTAssertFalse(options.contains("--version"), "--version is the program's only")
        XCTAssertEqual(complete("run", "x", "--on"), ["--only"])
    }

    func testEnumeratedValuesInEveryForm() {
        XCTAssertEqual(complete("gate", "last", "--for", ""), ["merge", "release"])
        XCTAssertEqual(complete("gate", "last", "--for", "r"), ["release"])
        XCTAssertEqual(complete("gate", "last", "--for=m"), ["--for=merge"])
        XCTAssertEqual(complete("gate", "last", "--for", "=", ""), ["merge", "release"], "bash splits at =")
    }

    func testPipelinesLayersAndHostsFromTheProjectFolder() {
        XCTAssertEqual(complete("run", ""), ["broken", "haptics"])
        XCTAssertEqual(complete("run", "haptics", "--only", ""), ["event-spec", "trigger-timing", "device"])
        XCTAssertEqual(complete("run", "haptics", "--only", "t"), ["trigger-timing"])
        XCTAssertEqual(complete("run", "broken", "--only", ""), [], "a broken pipeline gives no layers, no error")
        XCTAssertEqual(complete("run", "haptics", "--host", ""), ["mac-1", "mac-2"])
        XCTAssertEqual(complete("hosts", "check", "mac-1", "m"), ["mac-1", "mac-2"], "variadic: every position")
    }

    func testABrokenOrMissingHostsFileGivesNoHosts() throws {
        try "hosts: [ {name: \n".write(to: folder.appending(".pipe/hosts.yml"), atomically: true, encoding: .utf8)
        XCTAssertEqual(complete("hosts", "check", ""), [])
        XCTAssertEqual(complete("hosts", "check", "--hosts-file", "nowhere.yml", ""), [])
    }

    func testRunIDsFromTheStoreWithoutCreatingOne() throws {
        XCTAssertEqual(complete("runs", "show", ""), ["last"])
        XCTAssertFalse(
            FileManager.default.fileExists(atPath: folder.appending(".pipe/pipe.db").path),
            "completing creates no store")
        let runID = RunID.generate(at: Date(timeIntervalSince1970: 1_795_000_000)).value
        let started = UTCTimestamp.iso8601(try XCTUnwrap(RunID(runID)?.startTime))
        let record = RunRecord(
            runID: runID, pipeline: "haptics", pipelineFile: "pipelines/haptics.yml", status: .finished,
            request: .init(
                pipeline: "haptics", ref: "HEAD", workspace: "examples/haptics-app", requestedBy: "alice",
                trigger: "cli"),
            startedAt: started,
            layers: [
                .init(name: "event-spec", plugin: "xcodebuild-test", gate: .merge),
                .init(name: "device", plugin: "checklist", gate: .release),
            ])
        try SQLiteRunStore(location: folder.appending(".pipe/pipe.db")).createRun(
            record, owner: RunOwner(hostname: "ci-1", pid: 1, processStart: nil))
        XCTAssertEqual(complete("runs", "show", ""), ["last", runID])
        XCTAssertEqual(complete("gate", String(runID.prefix(6))), [runID])
        XCTAssertEqual(complete("signoff", "last", ""), ["event-spec", "device"], "the run's layers")
        XCTAssertEqual(complete("signoff", String(runID.prefix(6)), "d"), ["device"])
        XCTAssertEqual(complete("signoff", "20991231", ""), [], "no such run: no layers, no error")
    }

    func testPathsAskTheShellForFiles() {
        XCTAssertEqual(complete("controller", "--config", "co"), [CompletionEngine.filesMarker])
        XCTAssertEqual(complete("validate", "--help", ""), complete("validate", ""))
    }

    func testCompletionsCommandPrintsEachShellsScriptAndRefusesOthers() {
        var out = ""
        var err = ""
        let console = Console(out: { out += $0 }, err: { err += $0 })
        XCTAssertEqual(PipeCommandLine.main(["completions", "fish"], console: console), 0)
        XCTAssertEqual(out, CompletionScripts.fish)
        XCTAssertEqual(PipeCommandLine.main(["completions", "tcsh"], console: console), 2)
        XCTAssertTrue(err.contains("bash, zsh, fish"), err)
    }
}
