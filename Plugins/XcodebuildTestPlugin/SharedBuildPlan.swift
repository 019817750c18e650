import PipeApple
import PipeCore

/// Which `xcodebuild-test` layers of a run can share one `build-for-testing`.
///
/// Two layers share a build when everything that goes into the build is the same: the scheme, the `project` or
/// `workspace`, the configuration, the extra build settings and the test plan (a plan chooses the test targets
/// built, and its configurations may turn on sanitizers, which change the build), and the `xcodebuild-arguments`.
/// What only chooses tests to run or how — `only-testing`, `skip-testing`, `parallel`, `test-timeouts`, the
/// timeout, the secrets — does not matter. The destination platform
/// comes from the pipeline's `simulator:` (one for all its layers) and the host is checked when the build is
/// looked up, so neither is part of the plan. A layer with `share-build: false` never shares.
enum SharedBuildPlan {
    /// The settings that decide a build, as text; equal keys share a build.
    struct Key: Hashable {
        var scheme: String
        var container: XcodebuildCommand.Container
        var configuration: String?
        var buildSettings: [String: String]
        var testPlan: String?
        var arguments: [String]
        /// Whether it builds in the run's build cache (`build-cache:`) and wipes it first (`clean:`).
        var buildCache: Bool
        var clean: Bool

        init?(_ layer: LayerSpec) {
            guard layer.plugin == XcodebuildTestPlugin.kind, layer.settings["share-build"] != .boolean(false),
                let scheme = layer.settings["scheme"]?.stringValue
            else { return nil }
            self.scheme = scheme
            // Both `project` and `workspace` is refused when the layer runs; it shares nothing meanwhile.
            guard let container = try? XcodebuildTestPlugin.container(of: layer) else { return nil }
            self.container = container
            configuration = layer.settings["configuration"]?.stringValue
            if case .map(let map)? = layer.settings["build-settings"] {
                buildSettings = map
            } else {
                buildSettings = [:]
            }
            testPlan = layer.settings["test-plan"]?.stringValue
            arguments = layer.settings[XcodebuildTestOptions.argumentsKey]?.stringsValue ?? []
            buildCache = layer.buildCache
            clean = layer.clean
        }
    }

    /// The layers of `runLayers` (in their order) that share `layer`'s build, `layer` among them; only `layer`
    /// when it shares with none (it then runs plain `xcodebuild test`).
    static func sharers(of layer: LayerSpec, among runLayers: [LayerSpec]) -> [LayerSpec] {
        guard let key = Key(layer), runLayers.contains(where: { $0.name == layer.name }) else { return [layer] }
        return runLayers.filter { Key($0) == key }
    }

    /// Why `other` does not share `layer`'s build, one phrase per difference (empty when they share).
    static func differences(between layer: LayerSpec, and other: LayerSpec) -> [String] {
        guard let key = Key(layer) else { return [reasonAlone(layer)] }
        guard let otherKey = Key(other) else { return [reasonAlone(other)] }
        var reasons: [String] = []
        if key.scheme != otherKey.scheme { reasons.append("scheme \(key.scheme) ≠ \(otherKey.scheme)") }
        if key.container != otherKey.container {
            reasons.append("\(describe(key.container)) ≠ \(describe(otherKey.container))")
        }
        if key.configuration != otherKey.configuration {
            reasons.append(
                "configuration \(key.configuration ?? "(default)") ≠ \(otherKey.configuration ?? "(default)")")
        }
        if key.buildSettings != otherKey.buildSettings { reasons.append("different build-settings") }
        if key.arguments != otherKey.arguments { reasons.append("different xcodebuild-arguments") }
        if key.buildCache != otherKey.buildCache { reasons.append("build-cache differs") }
        if key.clean != otherKey.clean { reasons.append("clean differs") }
        if key.testPlan != otherKey.testPlan {
            reasons.append("test plan \(key.testPlan ?? "(scheme's)") ≠ \(otherKey.testPlan ?? "(scheme's)")")
        }
        return reasons
    }

    private static func reasonAlone(_ layer: LayerSpec) -> String {
        if layer.plugin != XcodebuildTestPlugin.kind { return "\(layer.name) is a \(layer.plugin) layer" }
        if layer.settings["share-build"] == .boolean(false) { return "\(layer.name) says share-build: false" }
        return "\(layer.name) has no single scheme and container"
    }

    private static func describe(_ container: XcodebuildCommand.Container) -> String {
        switch container {
        case .project(let path): return "project \(path)"
        case .workspace(let path): return "workspace \(path)"
        case .package: return "package"
        }
    }
}
