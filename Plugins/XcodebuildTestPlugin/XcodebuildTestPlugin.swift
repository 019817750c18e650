import Foundation
import PipeApple
import PipeBasics
import PipeCore

/// The `xcodebuild-test` layer: runs `xcodebuild test` for one scheme on the chosen simulator, with a result
/// bundle path that is fresh for every run, layer and attempt, and brings back the exit code, the full log, the
/// `.xcresult` bundle and its summary.
///
/// The outcome comes from the exit code, the log and the bundle's summary together (`XcodebuildOutcomeClassifier`):
/// a scheme that is not shared or a missing simulator is `host-config`, never a test failure.
public struct XcodebuildTestPlugin: LayerPlugin {
    public static let kind = "xcodebuild-test"
    public static let defaultGate = Gate.merge
    public static let needsSimulator = true
    public static let settings: [SettingSchema] = [
        SettingSchema("scheme", .string, required: true, "The shared scheme whose tests run."),
        SettingSchema("project", .string, "An .xcodeproj inside the workspace folder (not with `workspace`)."),
        SettingSchema("workspace", .string, "An .xcworkspace inside the workspace folder (not with `project`)."),
        SettingSchema("only-testing", .strings, "Test identifiers to run: Target, Target/Class or Target/Class/test."),
        SettingSchema("skip-testing", .strings, "Test identifiers to leave out."),
        SettingSchema("test-plan", .string, "A test plan of the scheme."),
        SettingSchema("configuration", .string, "The build configuration (Debug by default)."),
        SettingSchema("build-settings", .map, "Extra build settings, NAME: value."),
    ]

    /// File names inside the layer's artifacts folder.
    public enum ArtifactName {
        public static let exitCode = "exit-code"
        public static let log = "xcodebuild.log"
        public static let resultSummary = "xcresult-summary.json"
    }

    public init() {}

    public func run(_ context: LayerContext) throws -> LayerResult {
        let command = try makeCommand(context)
        let bundle = command.bundle
        let layerName = context.layer.name
        // The artifacts folder of the run on the host; the bundle's own path is fresh, the folder is shared.
        let prepare = try context.host.capture("mkdir -p \(ShellQuote.quote(bundle.directory))", timeoutSeconds: 60)
        guard prepare.exit == .exited(0) else {
            throw RemoteError(
                .commandFailed, host: context.hostName,
                "could not create \(bundle.directory): \(prepare.stderrText.trimmingCharacters(in: .whitespacesAndNewlines))"
            )
        }
        // xcodebuild hands `TEST_RUNNER_<NAME>` to the test process as `<NAME>`; the values travel on stdin.
        let delivery = SecretDelivery.wrap(
            "cd \(ShellQuote.quote(context.remoteWorkspace)) && \(command.xcodebuild.shellLine) 2>&1",
            secrets: context.secrets, exportName: { "TEST_RUNNER_\($0)" })
        context.events.emit(.remoteCommand(layer: layerName, command: command.xcodebuild.shellLine))

        let logURL = context.localArtifacts.appendingPathComponent(ArtifactName.log)
        guard FileManager.default.createFile(atPath: logURL.path, contents: nil) else {
            throw ConfigurationError(
                "could not create \(logURL.path) on the coordinator: check the disk and permissions")
        }
        let log = try FileHandle(forWritingTo: logURL)
        defer { try? log.close() }
        let parser = XcodebuildLogParser()
        var tests = TestResultCollector()
        var processGroup: RemoteProcessGroup?
        let handleEvents = { (events: [XcodebuildLogEvent]) in
            for event in events {
                if let finished = tests.record(event) {
                    context.events.emit(.testFinished(layer: layerName, result: finished))
                }
            }
        }
        let logRedactor = StreamRedactor(context.redactor)
        let exit = try context.host.runStoppable(
            delivery.command, stdin: delivery.stdin, timeoutSeconds: context.layer.timeoutSeconds,
            cancellation: context.cancellation,
            onStarted: { group in
                processGroup = group
                context.events.emit(
                    .remoteProcessStarted(layer: layerName, host: context.hostName, processGroup: group.id))
            },
            onStdout: { chunk in
                // What is written or shown is redacted; the parser reads the raw bytes (its results are redacted
                // by the engine before they are recorded).
                let shown = logRedactor.feed(chunk)
                log.write(shown)
                if !shown.isEmpty {
                    context.events.emit(
                        .output(layer: layerName, stream: .stdout, text: String(decoding: shown, as: UTF8.self)))
                }
                handleEvents(parser.feed(chunk))
            },
            onStderr: { chunk in
                let shown = context.redactor.redact(chunk)
                log.write(shown)
                context.events.emit(
                    .output(layer: layerName, stream: .stderr, text: String(decoding: shown, as: UTF8.self)))
            })
        handleEvents(parser.finish())
        let rest = logRedactor.flush()
        log.write(rest)
        if !rest.isEmpty {
            context.events.emit(.output(layer: layerName, stream: .stdout, text: String(decoding: rest, as: UTF8.self)))
        }
        try? log.synchronize()

        var artifacts: [ArtifactRecord] = []
        let exitURL = context.localArtifacts.appendingPathComponent(ArtifactName.exitCode)
        try Data((exit.artifactText + "\n").utf8).write(to: exitURL)
        artifacts.append(ArtifactRecord(kind: .exitCode, path: context.projectRelativePath(exitURL)))
        artifacts.append(try record(.log, logURL, context))

        var facts: [String: String] = [
            "resultBundleRemotePath": bundle.path,
            "command": command.xcodebuild.shellLine,
        ]
        if let processGroup { facts[LayerResult.processGroupFact] = "\(processGroup.id)" }
        var evidence: [String] = []
        var summary: XcresultSummary?
        // After a cancellation the user is waiting: keep what is already here and stop.
        if exit != .cancelled {
            let pulled = pullBack(bundle: bundle, context: context, evidence: &evidence)
            artifacts += pulled.artifacts
            summary = pulled.summary
        }
        let verdict = XcodebuildOutcomeClassifier.classify(exit: exit, log: parser.facts, summary: summary)
        return LayerResult(
            outcome: verdict.outcome, evidence: verdict.evidence + evidence, exit: exit, tests: tests.results,
            artifacts: artifacts, facts: facts)
    }

    // MARK: - Command

    private struct Command {
        var xcodebuild: XcodebuildCommand
        var bundle: ResultBundlePath
    }

    private func makeCommand(_ context: LayerContext) throws -> Command {
        let settings = context.layer.settings
        guard let simulator = context.simulator else {
            throw ConfigurationError("layer \(context.layer.name): no simulator was chosen for xcodebuild-test")
        }
        let container: XcodebuildCommand.Container
        switch (settings["project"]?.stringValue, settings["workspace"]?.stringValue) {
        case (let project?, nil): container = .project(project)
        case (nil, let workspace?): container = .workspace(workspace)
        case (nil, nil): container = .package
        case (_?, _?):
            throw ConfigurationError("layer \(context.layer.name): give `project` or `workspace`, not both")
        }
        let bundle = try ResultBundlePath(
            remoteRunFolder: context.remoteRunFolder, pipeline: context.pipelineName, layer: context.layer.name,
            startTime: context.runStartTime, runID: context.runID, attempt: context.attempt)
        var buildSettings: [XcodebuildCommand.BuildSetting] = []
        if case .map(let map)? = settings["build-settings"] {
            buildSettings = map.sorted { $0.key < $1.key }.map { XcodebuildCommand.BuildSetting($0.key, $0.value) }
        }
        let xcodebuild = try XcodebuildCommand(
            action: .test, container: container, scheme: settings["scheme"]?.stringValue ?? "",
            destination: .init(simulatorPlatform: simulator.platform, udid: simulator.udid),
            resultBundlePath: bundle.path, onlyTesting: settings["only-testing"]?.stringsValue ?? [],
            skipTesting: settings["skip-testing"]?.stringsValue ?? [], testPlan: settings["test-plan"]?.stringValue,
            configuration: settings["configuration"]?.stringValue, buildSettings: buildSettings)
        return Command(xcodebuild: xcodebuild, bundle: bundle)
    }

    // MARK: - Bringing results back

    private func pullBack(bundle: ResultBundlePath, context: LayerContext, evidence: inout [String]) -> (
        artifacts: [ArtifactRecord], summary: XcresultSummary?
    ) {
        var artifacts: [ArtifactRecord] = []
        let summaryCommand = ShellQuote.join([
            "xcrun", "xcresulttool", "get", "test-results", "summary", "--path", bundle.path,
        ])
        // The summary is read on the host while the bundle streams back: one wait, not three round trips.
        let pulled = context.host.pullBack(
            bundle.path, into: context.localArtifacts, cancellation: context.cancellation, alongside: summaryCommand,
            commandTimeoutSeconds: 120)
        if pulled.missing {
            evidence.append("no result bundle was written at \(bundle.path)")
            return ([], nil)
        }
        switch pulled.transfer {
        case .success(let transfer):
            artifacts.append(
                ArtifactRecord(
                    kind: .resultBundle,
                    path: context.projectRelativePath(URL(fileURLWithPath: transfer.destination)),
                    bytes: transfer.bytes, sha256: transfer.sha256))
        case .failure(let error):
            evidence.append("the result bundle could not be brought back: \(error)")
        }
        guard case .success(let output)? = pulled.command, output.exit == .exited(0) else {
            evidence.append("xcresulttool could not read the result bundle's summary")
            return (artifacts, nil)
        }
        let summaryURL = context.localArtifacts.appendingPathComponent(ArtifactName.resultSummary)
        if (try? context.redactor.redact(output.stdout).write(to: summaryURL)) != nil,
            let record = try? record(.summaryJSON, summaryURL, context)
        {
            artifacts.append(record)
        }
        do {
            return (artifacts, try XcresultSummary.decode(output.stdout))
        } catch {
            evidence.append("the result bundle's summary could not be read: \(error)")
            return (artifacts, nil)
        }
    }

    private func record(_ kind: ArtifactRecord.Kind, _ url: URL, _ context: LayerContext) throws -> ArtifactRecord {
        let size = (try FileManager.default.attributesOfItem(atPath: url.path)[.size] as? NSNumber)?.int64Value
        return ArtifactRecord(
            kind: kind, path: context.projectRelativePath(url), bytes: size, sha256: try SHA256Digest.hex(ofFile: url))
    }
}
