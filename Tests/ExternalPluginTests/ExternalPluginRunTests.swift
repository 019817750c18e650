import ExternalPlugin
import Foundation
import PipeCore
import PipeTestSupport
import XCTest

/// The adapter against real plugin processes, with a real SSH session to an emulated Mac host for host commands.
final class ExternalPluginRunTests: SharedHostTestCase {

    private func run(
        _ fixture: String, kind: String = "lint", settings: [String: SettingValue] = [:], timeout: Double? = nil,
        remoteWorkspace: String = "/nonexistent/workspace", cancellation: CancellationToken = CancellationToken(),
        in project: PluginProject? = nil, shellParameters: [String: String] = [:]
    ) throws -> (result: LayerResult, events: EventRecorder, project: PluginProject, seconds: Double) {
        let shared = try XCTUnwrap(Self.shared, "no emulated host")
        let project = try project ?? PluginProject()
        if !FileManager.default.fileExists(
            atPath: project.url.appendingPathComponent("Plugins/pipe-layer-\(kind)").path)
        {
            try project.install(fixture, as: kind)
        }
        let events = EventRecorder()
        let context = try project.context(
            kind: kind, settings: settings, timeout: timeout, host: shared.remote, remoteWorkspace: remoteWorkspace,
            events: events, cancellation: cancellation, shellParameters: shellParameters)
        let started = Date()
        let result = try ExternalLayerPlugin().run(context)
        return (result, events, project, Date().timeIntervalSince(started))
    }

    private func artifact(_ result: LayerResult, named name: String) -> ArtifactRecord? {
        result.artifacts.first { $0.path.hasSuffix("/" + name) }
    }

    // MARK: - A plugin that keeps the protocol

    func testAWellBehavedPluginReportsItsOutcomeTestsFactsAndArtifacts() throws {
        setenv("PIPE_TEST_SECRET", "hunter2", 1)
        defer { unsetenv("PIPE_TEST_SECRET") }
        let (result, events, project, _) = try run(
            "greeter", settings: ["greeting": .string("hi"), "times": .integer(3)])
        XCTAssertEqual(result.outcome, .passed, result.evidenceText)
        XCTAssertEqual(result.evidence, ["said hi"])
        XCTAssertEqual(result.tests.map(\.identifier), ["Greeter/testSays", "Greeter/testShouts"])
        XCTAssertEqual(result.tests.map(\.status), [.passed, .failed])
        XCTAssertEqual(result.tests[0].durationSeconds, 0.25)
        XCTAssertEqual(result.tests[1].failureLocation, "Greeter.swift:7")
        XCTAssertEqual(result.facts["runID"], project.runID)
        XCTAssertEqual(result.facts["kind"], "lint")
        XCTAssertEqual(result.facts["attempt"], "1")
        XCTAssertEqual(result.facts["udid"], "90052AC6-D47D-4B2A-840D-6B5B081260C6")
        XCTAssertEqual(result.facts["protocolEnv"], "1")
        XCTAssertEqual(result.facts["pluginProtocol"], "1")
        XCTAssertEqual(result.facts["secretSeen"], "", "the plugin inherits only the listed environment variables")
        let artifacts = try project.artifacts("lint")
        XCTAssertEqual(
            URL(fileURLWithPath: try XCTUnwrap(result.facts["cwd"])).standardizedFileURL.path,
            artifacts.standardizedFileURL.path, "a plugin runs in its layer's artifacts folder")
        let greeting = try XCTUnwrap(artifact(result, named: "greeting.txt"))
        XCTAssertEqual(greeting.path, "artifacts/\(project.runID)/lint/greeting.txt")
        XCTAssertEqual(greeting.bytes, 7)
        XCTAssertEqual(greeting.sha256?.count, 64)
        let stderr = try String(contentsOf: artifacts.appendingPathComponent("plugin-stderr.log"), encoding: .utf8)
        XCTAssertEqual(stderr, "greeter starting\n")
        let log = try String(contentsOf: artifacts.appendingPathComponent("plugin.log"), encoding: .utf8)
        XCTAssertEqual(log, "hello from lint\n")
        let transcript = try String(
            contentsOf: artifacts.appendingPathComponent("plugin-stdout.jsonl"), encoding: .utf8)
        XCTAssertEqual(transcript.split(separator: "\n").count, 4)
        let finished = events.events.compactMap { event -> String? in
            if case .testFinished(_, let test) = event { return test.identifier }
            return nil
        }
        XCTAssertEqual(finished, ["Greeter/testSays", "Greeter/testShouts"], "tests are reported as they arrive")
    }

    func testHostCommandsRunOnTheHostInTheWorkspaceAndAreAnswered() throws {
        let workspace = try XCTUnwrap(Self.shared).makeFolder("pipe-ext-\(UUID().uuidString.prefix(8))/workspace")
        let (result, events, _, _) = try run("host-asker", remoteWorkspace: workspace)
        XCTAssertEqual(result.outcome, .passed, result.evidenceText)
        XCTAssertEqual(result.facts["versionExit"], "0")
        XCTAssertTrue(result.facts["versionOut"]?.hasPrefix("Xcode 16.2") == true, "\(result.facts)")
        XCTAssertEqual(result.facts["missingExit"], "1")
        XCTAssertEqual(result.facts["missingId"], "m")
        XCTAssertEqual(result.facts["hostCommands"], "2")
        let commands = events.events.compactMap { event -> String? in
            if case .remoteCommand(_, let command) = event { return command }
            return nil
        }
        XCTAssertEqual(commands, ["xcodebuild -version", "test -d 'no such folder'"], "each value shell-quoted")
    }

    func testAShellCommandSettingsValuesReachItsHostCommandsAsData() throws {
        let workspace = try XCTUnwrap(Self.shared).makeFolder("pipe-ext-\(UUID().uuidString.prefix(8))/workspace")
        try? FileManager.default.removeItem(atPath: InjectionCorpus.witnessFile)
        let value = ".;id>\(InjectionCorpus.witnessFile)\n$(id>\(InjectionCorpus.witnessFile))"
        let (result, _, _, _) = try run(
            "shell-runner", settings: ["script": .string("printf %s \"$PIPE_PARAM_folder\"")],
            remoteWorkspace: workspace, shellParameters: ["PIPE_PARAM_folder": value])
        XCTAssertEqual(result.outcome, .passed, result.evidenceText)
        XCTAssertEqual(result.facts["exit"], "0")
        XCTAssertEqual(result.facts["printed"], value)
        XCTAssertFalse(FileManager.default.fileExists(atPath: InjectionCorpus.witnessFile))
    }

    // MARK: - Plugins that break it: plugin-error, stderr kept, nothing left running

    func testACrashIsAPluginErrorWithItsStderrKept() throws {
        let (result, _, project, _) = try run("crasher")
        XCTAssertEqual(result.outcome, .pluginError)
        XCTAssertTrue(result.evidenceText.contains("pipe-layer-lint crashed: killed by signal 11"), result.evidenceText)
        XCTAssertTrue(result.evidenceText.contains("fatal: the lint engine hit a bad pointer"), result.evidenceText)
        let stderr = try XCTUnwrap(artifact(result, named: "plugin-stderr.log"))
        XCTAssertEqual(stderr.kind, .log)
        XCTAssertEqual(
            try String(contentsOf: project.url.appendingPathComponent(stderr.path), encoding: .utf8),
            "fatal: the lint engine hit a bad pointer\n")
    }

    func testAHangIsStoppedAtTheTimeoutWithEverythingItStarted() throws {
        let (result, _, project, seconds) = try run("hanger", timeout: 1.5)
        XCTAssertEqual(result.outcome, .pluginError)
        XCTAssertTrue(
            result.evidenceText.contains(
                "did not finish within the layer's timeout (1.5 s); its process group was killed"),
            result.evidenceText)
        XCTAssertTrue(result.evidenceText.contains("hanging on purpose"), result.evidenceText)
        XCTAssertGreaterThanOrEqual(seconds, 1.5)
        XCTAssertLessThan(seconds, 5, "stopped at the timeout, not at the end of `sleep 300`")
        let pidText = try String(
            contentsOf: try project.artifacts("lint").appendingPathComponent("child.pid"), encoding: .utf8)
        let child = try XCTUnwrap(Int32(pidText.trimmingCharacters(in: .whitespacesAndNewlines)))
        XCTAssertFalse(isRunning(child), "the plugin's child \(child) outlived it")
    }

    func testMalformedJSONStopsThePluginAtOnce() throws {
        let (result, _, _, seconds) = try run("babbler")
        XCTAssertEqual(result.outcome, .pluginError)
        XCTAssertTrue(
            result.evidenceText.contains(
                "broke the plugin protocol: stdout line 1: malformed JSON on stdout: `this is not json`"),
            result.evidenceText)
        XCTAssertLessThan(seconds, 10, "not left to sleep")
    }

    func testAnotherProtocolVersionIsAPluginError() throws {
        let (result, _, _, _) = try run("future")
        XCTAssertEqual(result.outcome, .pluginError)
        XCTAssertTrue(
            result.evidenceText.contains("the plugin speaks protocol 3, this Pipe speaks 1 and 2"), result.evidenceText)
    }

    func testExitingWithoutAResultIsAPluginError() throws {
        let (result, _, _, _) = try run("quitter")
        XCTAssertEqual(result.outcome, .pluginError)
        XCTAssertTrue(result.evidenceText.contains("exited 0 without writing a result"), result.evidenceText)
        XCTAssertTrue(result.evidenceText.contains("nothing to say"), result.evidenceText)
    }

    func testANonZeroExitAfterTheResultIsAPluginError() throws {
        let (result, _, _, _) = try run("grumbler")
        XCTAssertEqual(result.outcome, .pluginError)
        XCTAssertTrue(result.evidenceText.contains("exited 1 after its result"), result.evidenceText)
        XCTAssertTrue(result.evidenceText.contains("the plugin wrote nothing on stderr"), result.evidenceText)
    }

    func testAnArtifactOutsideTheLayerFolderIsRefused() throws {
        let (result, _, _, _) = try run("escaper")
        XCTAssertEqual(result.outcome, .pluginError)
        XCTAssertTrue(result.evidenceText.contains("outside the layer's artifacts folder"), result.evidenceText)
        XCTAssertFalse(result.artifacts.contains { $0.path.contains("passwd") })
    }

    func testAMissingPluginSaysWhereItLooked() throws {
        let project = try PluginProject()
        let shared = try XCTUnwrap(Self.shared)
        let result = try ExternalLayerPlugin().run(
            try project.context(kind: "nothing-here", host: shared.remote, events: EventRecorder()))
        XCTAssertEqual(result.outcome, .pluginError)
        XCTAssertTrue(
            result.evidenceText.contains("no executable pipe-layer-nothing-here in \(project.url.path)/Plugins"),
            result.evidenceText)
    }

    func testCancellationStopsThePlugin() throws {
        let cancellation = CancellationToken()
        DispatchQueue.global().asyncAfter(deadline: .now() + 0.5) { cancellation.cancel(reason: "cancelled by Ctrl-C") }
        let (result, _, project, seconds) = try run("hanger", timeout: 60, cancellation: cancellation)
        XCTAssertEqual(result.outcome, .cancelled)
        XCTAssertLessThan(seconds, 5)
        let pidText = try String(
            contentsOf: try project.artifacts("lint").appendingPathComponent("child.pid"), encoding: .utf8)
        XCTAssertFalse(isRunning(try XCTUnwrap(Int32(pidText.trimmingCharacters(in: .whitespacesAndNewlines)))))
    }

    // MARK: - The shipped example

    func testTheExampleSourceLintPluginFindsForbiddenTextInTheCommitUnderTest() throws {
        let project = try PluginProject()
        try project.install(
            RepositoryPaths.root.appendingPathComponent("Plugins/examples/pipe-layer-source-lint"), as: "source-lint")
        // The run's checkout on the coordinator and its record, laid out as the engine lays them out.
        let workspace = project.url.appendingPathComponent(".pipe/work/\(project.runID)/checkout/app")
        try FileManager.default.createDirectory(
            at: workspace.appendingPathComponent("Sources"), withIntermediateDirectories: true)
        try "let a = 1\nlet b = try! load()\n".write(
            to: workspace.appendingPathComponent("Sources/Bad.swift"), atomically: true, encoding: .utf8)
        try "let fine = 1\n".write(
            to: workspace.appendingPathComponent("Sources/Good.swift"), atomically: true, encoding: .utf8)
        let record = RunRecord(
            runID: project.runID, pipeline: "app-intents", pipelineFile: "pipelines/app-intents.yml", status: .running,
            request: .init(pipeline: "app-intents", ref: "HEAD", workspace: "app", requestedBy: "test", trigger: "cli"),
            startedAt: "2026-11-29T14:03:12Z", layers: [])
        _ = try project.artifacts("lint")
        try record.write(to: project.url.appendingPathComponent("artifacts/\(project.runID)/summary.json"))
        let remoteWorkspace = try XCTUnwrap(Self.shared).makeFolder("pipe-ext-\(UUID().uuidString.prefix(8))/ws")

        let (result, _, _, _) = try run(
            "", kind: "source-lint", settings: ["paths": .strings(["Sources"])], remoteWorkspace: remoteWorkspace,
            in: project)
        XCTAssertEqual(result.outcome, .testsFailed, result.evidenceText)
        XCTAssertEqual(result.evidence, ["Sources/Bad.swift:2: contains 'try!'"])
        XCTAssertEqual(
            result.tests.map(\.identifier), ["SourceLint/Sources/Bad.swift", "SourceLint/Sources/Good.swift"])
        XCTAssertEqual(result.tests.map(\.status), [.failed, .passed])
        XCTAssertEqual(result.tests[0].failureLocation, "Sources/Bad.swift:2")
        XCTAssertEqual(result.facts["filesChecked"], "2")
        XCTAssertEqual(result.facts["hostXcode"], "Xcode 16.2 Build version 16C5032a")
        XCTAssertNotNil(artifact(result, named: "source-lint.txt"))
    }

    private func isRunning(_ pid: Int32) -> Bool {
        guard kill(pid, 0) == 0 else { return false }
        // A zombie has exited; it only waits for a parent that is gone.
        let stat = (try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8)) ?? ""
        return !(stat.split(separator: ")").last?.trimmingCharacters(in: .whitespaces).hasPrefix("Z") ?? false)
    }
}
