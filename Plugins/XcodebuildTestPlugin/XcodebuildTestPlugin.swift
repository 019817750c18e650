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
///
/// Layers of one run that build the same thing (`SharedBuildPlan`) build once with `build-for-testing` and each runs
/// `test-without-building` (`runWithSharedBuild`, in SharedBuild.swift); a layer alone runs `xcodebuild test`.
public struct XcodebuildTestPlugin: LayerPlugin {
    public static let kind = "xcodebuild-test"
    public static let defaultGate = Gate.merge
    public static let needsSimulator = true
    public static let buildsInCache = true
    /// How many failed tests a test retry ran again (`-only-testing` for each), in the attempt's facts.
    public static let retriedTestsFact = "retriedTests"
    public static let settings: [SettingSchema] =
        [
            SettingSchema("scheme", .string, required: true, "The shared scheme whose tests run."),
            SettingSchema("project", .string, "An .xcodeproj inside the workspace folder (not with `workspace`)."),
            SettingSchema("workspace", .string, "An .xcworkspace inside the workspace folder (not with `project`)."),
            SettingSchema(
                "only-testing", .strings, "Test identifiers to run: Target, Target/Class or Target/Class/test."),
            SettingSchema("skip-testing", .strings, "Test identifiers to leave out."),
            SettingSchema("test-plan", .string, "A test plan of the scheme."),
            SettingSchema("configuration", .string, "The build configuration (Debug by default)."),
            SettingSchema(
                "share-build", .boolean,
                "Build once with the run's other layers of the same scheme, container, configuration, build settings "
                    + "and test plan (build-for-testing, then test-without-building); true by default."),
        ] + XcodebuildTestOptions.settings

    /// File names inside the layer's artifacts folder.
    public enum ArtifactName {
        public static let exitCode = "exit-code"
        public static let log = "xcodebuild.log"
        public static let resultSummary = "xcresult-summary.json"
        /// On an Xcode before 16: the legacy root record, which stands in for the summary.
        public static let legacyResultRoot = "xcresult-root.json"
    }

    public init() {}

    public func run(_ context: LayerContext) throws -> LayerResult {
        let started = Date()
        let sharers = SharedBuildPlan.sharers(of: context.layer, among: context.runLayers)
        if sharers.count > 1 {
            return try runWithSharedBuild(context, sharers: sharers, started: started)
        }
        // A derived-data folder of the layer's own: layers of one run may build at the same time on one host, and
        // two builds in one derived-data folder fail on Xcode's build database lock. In the run's build cache it
        // stays at one path from run to run (a warm build); without one it is new in the run folder (cold).
        let folders = try BuildFolders.prepare(
            label: ResultBundlePath.safeComponent(context.layer.name), fresh: Self.derivedDataPath(ofLayer: context),
            context: context)
        let command = try makeCommand(
            context, derivedDataPath: folders.derivedData, clonedSourcePackagesPath: folders.packages)
        var result = try runTests(command, context: context, timeoutSeconds: context.layer.timeoutSeconds)
        folders.markIfCorrupt(
            log: context.localArtifacts.appendingPathComponent(ArtifactName.log), context: context,
            evidence: &result.evidence)
        result.facts.merge(folders.use.facts) { _, use in use }
        return result
    }

    /// `<run folder>/DerivedData/<layer>`: a layer's own build products (a shared build's folder names every layer
    /// that shares it, joined with `+`, which no layer name contains).
    static func derivedDataPath(ofLayer context: LayerContext) -> String {
        context.remoteRunFolder + "/DerivedData/" + context.layer.name
    }

    /// Runs the layer's test command (`test`, or `test-without-building` on a shared build) and brings back its
    /// exit code, log, bundle and summary.
    func runTests(_ command: Command, context: LayerContext, timeoutSeconds: Double?) throws -> LayerResult {
        let bundle = command.bundle
        // The artifacts folder of the run on the host; the bundle's own path is fresh, the folder is shared.
        try XcodebuildInvocation.makeRemoteFolder(bundle.directory, context: context)
        let logURL = context.localArtifacts.appendingPathComponent(ArtifactName.log)
        let invocation = try XcodebuildInvocation.run(
            command.xcodebuild, layerName: context.layer.name, log: logURL, timeoutSeconds: timeoutSeconds,
            context: context)
        let exit = invocation.exit

        var artifacts: [ArtifactRecord] = []
        artifacts.append(
            try XcodebuildInvocation.writeExitCode(
                exit, to: context.localArtifacts.appendingPathComponent(ArtifactName.exitCode), context: context))
        artifacts.append(try record(.log, logURL, context))

        var facts: [String: String] = [
            "resultBundleRemotePath": bundle.path,
            "command": command.xcodebuild.shellLine,
        ]
        if let processGroup = invocation.processGroup { facts[LayerResult.processGroupFact] = "\(processGroup.id)" }
        if let retries = XcodebuildTestOptions.toolRetries(context) {
            facts[LayerResult.toolRetriedTestsFact] = String(retries)
        }
        if let retried = XcodebuildTestOptions.onlyTestingRetried(context) {
            facts[Self.retriedTestsFact] = String(retried.count)
        }
        var evidence: [String] = []
        var summary: XcresultSummary?
        var refusal: RemoteError?
        var bundleEvidence: BundleEvidence?
        // After a cancellation the user is waiting: keep what is already here and stop.
        if exit != .cancelled {
            let pulled = pullBack(bundle: bundle, context: context, evidence: &evidence)
            artifacts += pulled.artifacts
            summary = pulled.summary
            refusal = pulled.refusal
            if refusal == nil, pulled.bundleArrived {
                // Xcode before 16: the tests and attachments come from the legacy commands, one round trip each.
                let legacy = pulled.legacyRoot.map {
                    LegacyBundleEvidence.gather(bundle: bundle, root: $0, host: context.host)
                }
                let read = pullBackEvidence(
                    bundle: bundle, logTests: invocation.tests, context: context, legacy: legacy)
                refusal = read.refusal
                bundleEvidence = read.evidence
            }
        }
        let tests = TestResultMerge.merge(log: invocation.tests, bundle: bundleEvidence?.tests ?? [])
        artifacts += bundleEvidence?.artifacts ?? []
        evidence += bundleEvidence?.notes ?? []
        if let refusal {
            // What the host sent cannot be trusted, so neither can its verdict.
            var result = LayerResult(
                outcome: .infrastructure, evidence: [refusal.description] + evidence, exit: exit,
                tests: tests, artifacts: artifacts, facts: facts)
            result.hostSentRefusedContent = true
            return result
        }
        let verdict = XcodebuildOutcomeClassifier.classify(exit: exit, log: invocation.facts, summary: summary)
        if let runnerFailure = verdict.testRunnerFailure { facts[LayerResult.testRunnerFailureFact] = runnerFailure }
        var result = LayerResult(
            outcome: verdict.outcome, evidence: verdict.evidence + evidence, exit: exit, tests: tests,
            artifacts: artifacts, facts: facts)
        result.earlierRuns = invocation.earlierRuns
        Self.judgeRetriedTests(&result)
        if let requirement = context.layer.coverage, exit != .cancelled {
            Self.judgeCoverage(bundleEvidence?.coverage, against: requirement, result: &result)
        }
        return result
    }

    // MARK: - Command

    struct Command {
        var xcodebuild: XcodebuildCommand
        var bundle: ResultBundlePath
    }

    /// The layer's own test command: `test`, or `test-without-building` on the products in `derivedDataPath`.
    func makeCommand(
        _ context: LayerContext, action: XcodebuildCommand.Action = .test, derivedDataPath: String? = nil,
        clonedSourcePackagesPath: String? = nil
    ) throws -> Command {
        let settings = context.layer.settings
        guard let simulator = context.simulator else {
            throw ConfigurationError("layer \(context.layer.name): no simulator was chosen for xcodebuild-test")
        }
        let bundle = try ResultBundlePath(
            remoteRunFolder: context.remoteRunFolder, pipeline: context.pipelineName, layer: context.layer.name,
            startTime: context.runStartTime, runID: context.runID, attempt: context.attempt)
        var xcodebuild = try XcodebuildCommand(
            action: action, container: try Self.container(of: context.layer),
            scheme: settings["scheme"]?.stringValue ?? "",
            destination: .init(simulatorPlatform: simulator.platform, udid: simulator.udid),
            resultBundlePath: bundle.path,
            onlyTesting: XcodebuildTestOptions.onlyTestingRetried(context)
                ?? settings["only-testing"]?.stringsValue ?? [],
            skipTesting: settings["skip-testing"]?.stringsValue ?? [], testPlan: settings["test-plan"]?.stringValue,
            configuration: settings["configuration"]?.stringValue, buildSettings: Self.buildSettings(of: context.layer),
            derivedDataPath: derivedDataPath, clonedSourcePackagesPath: clonedSourcePackagesPath,
            options: try XcodebuildTestOptions.options(of: context.layer) + XcodebuildTestOptions.retryOptions(context))
        xcodebuild.enablesCodeCoverage = context.layer.coverage != nil
        return Command(xcodebuild: xcodebuild, bundle: bundle)
    }

    /// `-project`, `-workspace` or neither (a Swift package), from the layer's settings.
    static func container(of layer: LayerSpec) throws -> XcodebuildCommand.Container {
        switch (layer.settings["project"]?.stringValue, layer.settings["workspace"]?.stringValue) {
        case (let project?, nil): return .project(project)
        case (nil, let workspace?): return .workspace(workspace)
        case (nil, nil): return .package
        case (_?, _?): throw ConfigurationError("layer \(layer.name): give `project` or `workspace`, not both")
        }
    }

    /// The layer's `build-settings`, sorted by name so equal settings give equal command lines.
    static func buildSettings(of layer: LayerSpec) -> [XcodebuildCommand.BuildSetting] {
        guard case .map(let map)? = layer.settings["build-settings"] else { return [] }
        return map.sorted { $0.key < $1.key }.map { XcodebuildCommand.BuildSetting($0.key, $0.value) }
    }

    // MARK: - Bringing results back

    /// What came back with the bundle.
    struct PulledBack {
        var artifacts: [ArtifactRecord] = []
        var summary: XcresultSummary?
        var refusal: RemoteError?
        var bundleArrived = false
        /// The legacy root record, on an Xcode before 16 (`LegacyBundleEvidence`).
        var legacyRoot: XcresultLegacyInvocationRecord?
    }

    private func pullBack(bundle: ResultBundlePath, context: LayerContext, evidence: inout [String]) -> PulledBack {
        var result = PulledBack()
        let legacy = LegacyBundleEvidence.applies(hostXcode: context.hostXcode)
        // The summary, the tests, coverage and attachments are read on the host while the bundle streams back:
        // one wait, not a round trip each.
        let coverage = context.layer.coverage != nil
        let summaryCommand =
            legacy
            ? LegacyBundleEvidence.script(bundle: bundle, coverage: coverage)
            : BundleEvidence.script(bundle: bundle, coverage: coverage)
        let pulled = context.host.pullBack(
            bundle.path, into: context.localArtifacts, cancellation: context.cancellation, alongside: summaryCommand,
            commandTimeoutSeconds: 120, limitBytes: context.layer.artifactLimitBytes)
        if pulled.missing {
            evidence.append("no result bundle was written at \(bundle.path)")
            return result
        }
        switch pulled.transfer {
        case .success(let transfer):
            result.artifacts.append(
                ArtifactRecord(
                    kind: .resultBundle,
                    path: context.projectRelativePath(URL(fileURLWithPath: transfer.destination)),
                    bytes: transfer.bytes, sha256: transfer.sha256))
        case .failure(let error as RemoteError) where error.kind == .refusedContent:
            result.refusal = error
            return result
        case .failure(let error):
            evidence.append("the result bundle could not be brought back: \(error)")
        }
        result.bundleArrived = result.artifacts.contains { $0.kind == .resultBundle }
        guard case .success(let output)? = pulled.command, output.exit == .exited(0) else {
            if case .failure(let error as RemoteError)? = pulled.command, error.kind == .refusedContent {
                result.refusal = error
                result.bundleArrived = false
                return result
            }
            evidence.append("xcresulttool could not read the result bundle's summary")
            return result
        }
        let name = legacy ? ArtifactName.legacyResultRoot : ArtifactName.resultSummary
        let summaryURL = context.localArtifacts.appendingPathComponent(name)
        if (try? context.redactor.redact(output.stdout).write(to: summaryURL)) != nil,
            let record = try? record(.summaryJSON, summaryURL, context)
        {
            result.artifacts.append(record)
        }
        do {
            if legacy {
                let root = try LegacyBundleEvidence.root(output.stdout)
                result.legacyRoot = root
                result.summary = XcresultSummary(legacy: root)
            } else {
                result.summary = try XcresultSummary.decode(output.stdout)
            }
        } catch {
            evidence.append("the result bundle's summary could not be read: \(error)")
        }
        return result
    }

    func record(_ kind: ArtifactRecord.Kind, _ url: URL, _ context: LayerContext) throws -> ArtifactRecord {
        let size = (try FileManager.default.attributesOfItem(atPath: url.path)[.size] as? NSNumber)?.int64Value
        return ArtifactRecord(
            kind: kind, path: context.projectRelativePath(url), bytes: size, sha256: try SHA256Digest.hex(ofFile: url))
    }
}
