import Foundation
import PipeApple
import PipeBasics
import PipeCore

/// One `xcodebuild build-for-testing` that several layers of a run share, as each of them sees it.
///
/// The first layer to need it runs it (`XcodebuildTestPlugin.runWithSharedBuild`); the others wait for it through
/// `RunSharedWork` and reuse its products with `test-without-building`. Its log and exit code are kept in
/// `artifacts/<run>/build-for-testing/<layer>+<layer>…/`; a rebuild (a retry after a failed build) gets `-2`, `-3`.
struct SharedBuild {
    /// The layers that share it, in pipeline order.
    var layers: [String]
    /// The layer that ran it.
    var builtBy: String
    var host: String
    var exit: RemoteExit
    /// `passed` when the products are there; otherwise how the build failed, for every sharing layer.
    var outcome: LayerOutcome
    var evidence: [String]
    var seconds: Double
    var derivedDataPath: String
    /// Where the build put package checkouts, in a build cache.
    var packagesPath: String? = nil
    /// Warm or cold, and in which build cache.
    var use = BuildCacheUse(state: .cold, cache: nil)
    var command: String
    /// The build's log and exit code in the run's artifacts.
    var artifacts: [ArtifactRecord]
    /// The folder of the log, relative to the project.
    var folder: String
    /// The build's log on the coordinator.
    var log: URL
    var processGroup: RemoteProcessGroup?

    var succeeded: Bool { outcome == .passed }

    /// Facts for the record of a layer that used this build; `reused` when another layer built it.
    func facts(for layer: String) -> [String: String] {
        let reused = layer != builtBy
        return [
            "sharedBuild": layers.joined(separator: ", "),
            "sharedBuildBy": builtBy,
            "sharedBuildSeconds": String(format: "%.3f", seconds),
            // What this layer did not spend building: the whole build for a layer that reused it.
            "buildSecondsSaved": String(format: "%.3f", reused && succeeded ? seconds : 0),
            "sharedBuildLog": folder + "/" + XcodebuildTestPlugin.ArtifactName.log,
            "sharedBuildCommand": command,
            "derivedDataPath": derivedDataPath,
        ].merging(use.facts) { _, use in use }
    }

    /// The `RunSharedWork` key: one build per group of layers, platform and host (a run moved to another host
    /// builds again there).
    static func key(layers: [String], platform: String, host: String) -> String {
        "xcodebuild-test build-for-testing|host=\(host)|platform=\(platform)|layers=\(layers.joined(separator: ","))"
    }

    /// `logic+intent`, each name reduced to characters safe in a path.
    static func label(_ layers: [String]) -> String {
        layers.map(ResultBundlePath.safeComponent).joined(separator: "+")
    }
}

extension XcodebuildTestPlugin {
    /// The name of the folder, under the run's artifacts, that keeps the shared builds' logs.
    static let sharedBuildFolder = "build-for-testing"

    /// Runs a layer that shares its build with `sharers`: the build once for all of them, then this layer's own
    /// `test-without-building` with its own simulator, test selection and fresh result bundle.
    func runWithSharedBuild(_ context: LayerContext, sharers: [LayerSpec], started: Date) throws -> LayerResult {
        guard let simulator = context.simulator else {
            throw ConfigurationError("layer \(context.layer.name): no simulator was chosen for xcodebuild-test")
        }
        let names = sharers.map(\.name)
        let key = SharedBuild.key(
            layers: names,
            platform: XcodebuildCommand.Destination(simulatorPlatform: simulator.platform, udid: simulator.udid)
                .platform,
            host: context.hostName)
        if context.attempt > 1 {
            // A retry must not reuse a build that failed (a lost connection, a timeout): it builds again. A good
            // build stays, even one another layer made meanwhile.
            context.sharedWork.forget(key) { (result: Result<SharedBuild, Error>) in
                (try? result.get())?.succeeded != true
            }
        }
        let build: SharedBuild = try context.sharedWork.once(key) {
            try self.buildForTesting(context, layers: names, simulator: simulator)
        }
        var facts = build.facts(for: context.layer.name)
        guard build.succeeded else {
            if build.builtBy == context.layer.name, let group = build.processGroup {
                facts[LayerResult.processGroupFact] = "\(group.id)"
            }
            return LayerResult(
                outcome: build.outcome,
                evidence: [
                    "the build-for-testing shared by \(names.joined(separator: ", ")) failed (log: "
                        + "\(build.folder)/\(ArtifactName.log))"
                ] + build.evidence,
                exit: build.exit, artifacts: try keepFailedBuild(build, in: context), facts: facts)
        }
        if build.builtBy != context.layer.name {
            context.events.emit(
                .note(
                    "layer \(context.layer.name) reuses the build of \(build.builtBy) (a "
                        + String(format: "%.1f s", build.seconds) + " build it does not run again); it runs "
                        + "test-without-building"))
        }
        let command = try makeCommand(
            context, action: .testWithoutBuilding, derivedDataPath: build.derivedDataPath,
            clonedSourcePackagesPath: build.packagesPath)
        let remaining = context.layer.timeoutSeconds.map { max(1, $0 - Date().timeIntervalSince(started)) }
        var result = try runTests(command, context: context, timeoutSeconds: remaining)
        result.facts.merge(facts) { own, _ in own }
        result.artifacts += build.artifacts
        result.evidence.append(
            "built once for \(names.joined(separator: ", ")) by \(build.builtBy) in "
                + String(format: "%.1f s", build.seconds) + "; this layer ran test-without-building")
        return result
    }

    /// A layer whose shared build failed still has its own `exit-code` and `xcodebuild.log` (copies of the
    /// build's), so its folder tells the whole story like any other layer's; the shared files are listed too.
    private func keepFailedBuild(_ build: SharedBuild, in context: LayerContext) throws -> [ArtifactRecord] {
        let logURL = context.localArtifacts.appendingPathComponent(ArtifactName.log)
        try? FileManager.default.removeItem(at: logURL)
        try FileManager.default.copyItem(at: build.log, to: logURL)
        return [
            try XcodebuildInvocation.writeExitCode(
                build.exit, to: context.localArtifacts.appendingPathComponent(ArtifactName.exitCode), context: context),
            try record(.log, logURL, context),
        ] + build.artifacts
    }

    /// Runs `xcodebuild build-for-testing` for `layers` on the chosen simulator's platform, into a derived-data
    /// folder of its own in the run's folder on the host.
    private func buildForTesting(_ context: LayerContext, layers: [String], simulator: Simulator) throws
        -> SharedBuild
    {
        let label = SharedBuild.label(layers)
        let runArtifacts = context.runArtifacts ?? context.localArtifacts
        let buildsFolder = runArtifacts.appendingPathComponent(Self.sharedBuildFolder, isDirectory: true)
        var number = 1
        var suffix: String { number == 1 ? "" : "-\(number)" }
        while FileManager.default.fileExists(atPath: buildsFolder.appendingPathComponent(label + suffix).path) {
            number += 1
        }
        let folder = buildsFolder.appendingPathComponent(label + suffix, isDirectory: true)
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let folders = try BuildFolders.prepare(
            label: label, fresh: context.remoteRunFolder + "/DerivedData/" + label + suffix, context: context)
        let derivedData = folders.derivedData
        let bundle = try ResultBundlePath(
            remoteRunFolder: context.remoteRunFolder, pipeline: context.pipelineName,
            layer: "build-for-testing-" + layers.joined(separator: "-"), startTime: Date(), runID: context.runID,
            attempt: number)
        let settings = context.layer.settings
        // The products are built for the chosen simulator: an app built for one simulator runs on any other of
        // its platform on this host (same architecture, same Xcode), and a concrete destination builds only the
        // active architecture where a generic one builds them all.
        var command = try XcodebuildCommand(
            action: .buildForTesting, container: try Self.container(of: context.layer),
            scheme: settings["scheme"]?.stringValue ?? "",
            destination: .init(simulatorPlatform: simulator.platform, udid: simulator.udid),
            resultBundlePath: bundle.path, testPlan: settings["test-plan"]?.stringValue,
            configuration: settings["configuration"]?.stringValue, buildSettings: Self.buildSettings(of: context.layer),
            derivedDataPath: derivedData, clonedSourcePackagesPath: folders.packages,
            options: try XcodebuildTestOptions.buildOptions(of: context.layer))
        // Coverage needs instrumented products: one layer of the build asking for it instruments them for all.
        command.enablesCodeCoverage = context.runLayers.contains { layers.contains($0.name) && $0.coverage != nil }
        try XcodebuildInvocation.makeRemoteFolder(bundle.directory, context: context)
        context.events.emit(
            .note(
                "building once for layers \(layers.joined(separator: ", ")) on \(context.hostName): xcodebuild "
                    + "build-for-testing into \(derivedData)"))
        let started = Date()
        let logURL = folder.appendingPathComponent(ArtifactName.log)
        // The build runs no test: the layer's secrets are for its test process only.
        var buildContext = context
        buildContext.secrets = SecretValues()
        let invocation = try XcodebuildInvocation.run(
            command, layerName: context.layer.name, log: logURL, timeoutSeconds: context.layer.timeoutSeconds,
            context: buildContext)
        let seconds = Date().timeIntervalSince(started)
        let artifacts = [
            try XcodebuildInvocation.writeExitCode(
                invocation.exit, to: folder.appendingPathComponent(ArtifactName.exitCode), context: context),
            try record(.log, logURL, context),
        ]
        let succeeded =
            invocation.exit == .exited(0) && invocation.facts.banner?.result == .succeeded
        var outcome = LayerOutcome.passed
        var evidence: [String] = []
        folders.markIfCorrupt(log: logURL, context: context, evidence: &evidence)
        if !succeeded {
            let verdict = XcodebuildOutcomeClassifier.classify(exit: invocation.exit, log: invocation.facts)
            // Exit 0 without a SUCCEEDED banner is already `infrastructure`; nothing else can pass.
            outcome = verdict.outcome == .passed ? .infrastructure : verdict.outcome
            evidence = verdict.evidence + evidence
        }
        context.events.emit(
            .note(
                "the build for \(layers.joined(separator: ", ")) "
                    + (succeeded ? "succeeded" : "failed (\(outcome.rawValue))") + " in "
                    + String(format: "%.1f s", seconds)
                    + (succeeded ? "; each layer runs test-without-building" : "")))
        return SharedBuild(
            layers: layers, builtBy: context.layer.name, host: context.hostName, exit: invocation.exit,
            outcome: outcome, evidence: evidence, seconds: seconds, derivedDataPath: derivedData,
            packagesPath: folders.packages, use: folders.use, command: command.shellLine, artifacts: artifacts,
            folder: context.projectRelativePath(folder), log: logURL,
            processGroup: invocation.processGroup)
    }
}
