import Foundation
import PipeApple
import PipeBasics
import PipeCore

/// Where one build goes: the run's build cache on the host, at the same absolute paths every run (warm once an
/// earlier run left products there), or a fresh folder of the run (always cold).
///
/// In the cache each build identity (`BuildIdentity`: the layer or layers sharing the build, scheme, container,
/// configuration, build settings, test plan and arguments, Xcode) has its own DerivedData and package checkouts,
/// so layers of one run that build at once never share Xcode's build database. Before the first attempt builds,
/// `clean: true` wipes both, and so does a mark an earlier build left when its log showed corrupt DerivedData
/// (`DerivedDataCorruption`); a build that failed or was cancelled is used again, as Xcode copes with that.
struct BuildFolders {
    var derivedData: String
    /// `-clonedSourcePackagesDirPath`, in the cache; `nil` outside one (inside the fresh DerivedData).
    var packages: String?
    var use: BuildCacheUse

    /// The name of the mark a build leaves in a DerivedData it found corrupt: the next build wipes it first.
    static let corruptMark = "pipe-corrupt-derived-data"

    /// `$1`: DerivedData; `$2`: package checkouts; `$3`: `clean` to wipe them. Wipes them when told, or when the
    /// corrupt mark is there (`pipe-build-wiped-corrupt`), creates both and prints `pipe-build warm` when the
    /// DerivedData holds an earlier build's `Build` folder (products and intermediates), else `pipe-build cold`.
    static let prepareScript =
        "d=$1; p=$2; if [ \"$3\" = clean ]; then rm -rf \"$d\" \"$p\" || exit 74; "
        + "elif [ -e \"$d/\(corruptMark)\" ]; then rm -rf \"$d\" \"$p\" || exit 74; echo pipe-build-wiped-corrupt; fi; "
        + "if [ -d \"$d/Build\" ]; then echo pipe-build warm; else echo pipe-build cold; fi; "
        + "mkdir -p \"$d\" \"$p\" || exit 74"

    /// The folders for the build of `layers` (labelled `label`), `fresh` being the run's own folder for it.
    static func prepare(label: String, fresh: String, context: LayerContext) throws -> BuildFolders {
        let layer = context.layer
        guard layer.buildCache, let cache = context.buildCache else {
            let reason = layer.buildCache ? "the run has no build cache on this host" : "build-cache: false"
            return BuildFolders(
                derivedData: fresh, packages: nil, use: BuildCacheUse(state: .cold, cache: nil, reason: reason))
        }
        let identity = try buildIdentity(label: label, layer: layer, xcodeVersion: cache.xcodeVersion)
        let folders = cache.folders(for: identity)
        let clean = layer.clean && context.attempt == 1
        let output = try context.host.capture(
            ShellQuote.join([
                "/bin/sh", "-c", prepareScript, "pipe-build-folders", folders.derivedData, folders.packages,
                clean ? "clean" : "keep",
            ]), timeoutSeconds: 300)
        guard output.exit == .exited(0) else {
            throw RemoteError(
                output.stderrText.contains("No space left") ? .diskFull : .commandFailed, host: context.hostName,
                "could not prepare the build cache \(cache.name) (\(folders.derivedData)): "
                    + output.stderrText.trimmingCharacters(in: .whitespacesAndNewlines)
                    + "; `pipe hosts clean --build-caches` removes it")
        }
        let lines = output.stdoutText.split(separator: "\n").map(String.init)
        let warm = lines.contains("pipe-build warm")
        let reason: String? =
            warm
            ? nil
            : clean
                ? "clean: true"
                : lines.contains("pipe-build-wiped-corrupt")
                    ? "the DerivedData was corrupt and was wiped"
                    : "nothing built in this cache yet"
        context.events.emit(
            .note(
                "layer \(layer.name) builds \(warm ? "warm" : "cold") in build cache \(cache.name)"
                    + (reason.map { " (\($0))" } ?? "")))
        return BuildFolders(
            derivedData: folders.derivedData, packages: folders.packages,
            use: BuildCacheUse(state: warm ? .warm : .cold, cache: cache.name, reason: reason))
    }

    /// What decides the products of `layer`'s build: the build's key (`SharedBuildPlan.Key`) and the Xcode.
    static func buildIdentity(label: String, layer: LayerSpec, xcodeVersion: String?) throws -> BuildIdentity {
        let settings = layer.settings
        var container: String
        switch try XcodebuildTestPlugin.container(of: layer) {
        case .project(let path): container = "project " + path
        case .workspace(let path): container = "workspace " + path
        case .package: container = "package"
        }
        if let plan = settings["test-plan"]?.stringValue { container += "\u{0}test-plan " + plan }
        let arguments = settings[XcodebuildTestOptions.argumentsKey]?.stringsValue ?? []
        return BuildIdentity(
            label: label, scheme: settings["scheme"]?.stringValue ?? "", container: container,
            configuration: settings["configuration"]?.stringValue,
            buildSettings: XcodebuildTestPlugin.buildSettings(of: layer).map { "\($0.name)=\($0.value)" } + arguments,
            xcodeVersion: xcodeVersion)
    }

    /// After a build: marks the DerivedData when its log shows it corrupt, so the next build starts cold, and
    /// says so in `evidence`.
    func markIfCorrupt(log: URL, context: LayerContext, evidence: inout [String]) {
        guard use.cache != nil, let line = DerivedDataCorruption.evidence(inLogAt: log) else { return }
        let marked = try? context.host.capture(
            "mkdir -p \(ShellQuote.quote(derivedData)) && : > \(ShellQuote.quote(derivedData + "/" + Self.corruptMark))",
            timeoutSeconds: 60)
        evidence.append(
            "the build cache's DerivedData looks corrupt (\(line)); "
                + (marked?.exit == .exited(0)
                    ? "the next build wipes it first"
                    : "marking it failed: `pipe hosts clean --build-caches` removes it"))
    }
}
