import Foundation
import PipeBasics
import PipeCore

/// Runs a layer whose kind is an external plugin: the executable `pipe-layer-<kind>` found by
/// `ExternalPluginDiscovery`, on the coordinator, speaking the JSON protocol of `docs/plugins.md`.
///
/// One adapter serves every external kind: it reads the kind from `context.layer.plugin`, so the engine registers
/// this type under each external kind a pipeline uses. The plugin gets one request line on stdin; it writes log
/// lines, test results and host commands (run here over the run's SSH session, answered on its stdin) and one
/// result on stdout. Whatever the plugin does — crash, hang past the layer's timeout, write malformed JSON, speak
/// another protocol version — the layer ends `plugin-error` with the plugin's stderr kept as an artifact, its
/// process group killed, and the run goes on.
public struct ExternalLayerPlugin: LayerPlugin {
    /// The registry key of the adapter itself; a layer names the external kind (`plugin: lint`), under which the
    /// engine registers this type.
    public static let kind = "external"
    public static let defaultGate = Gate.merge
    /// The request always carries the chosen simulator, so a plugin can use it.
    public static let needsSimulator = true
    /// Each external kind declares its own settings with `--describe`.
    public static let settings: [SettingSchema] = []

    /// File names inside the layer's artifacts folder.
    public enum ArtifactName {
        public static let stderr = "plugin-stderr.log"
        public static let stdout = "plugin-stdout.jsonl"
        public static let log = "plugin.log"
    }

    /// Environment variables a plugin inherits from `pipe`; nothing else reaches it (secrets stay out).
    public static let inheritedEnvironment = [
        "PATH", "HOME", "USER", "LOGNAME", "LANG", "LC_ALL", "LC_CTYPE", "TMPDIR", "TZ",
    ]

    public init() {}

    public func run(_ context: LayerContext) throws -> LayerResult {
        let kind = context.layer.plugin
        let environment = ProcessInfo.processInfo.environment
        let executable: URL
        do {
            executable = try ExternalPluginDiscovery.locate(
                kind: kind, projectDirectory: context.projectDirectory, path: environment["PATH"])
        } catch {
            return LayerResult(outcome: .pluginError, evidence: [error.description])
        }
        let version: Int
        do {
            // Pipe speaks the plugin's own version to it, so a plugin of protocol 1 keeps working.
            version = try ExternalPluginDiscovery.describeOnce(executable, kind: kind).protocolVersion
        } catch {
            return LayerResult(outcome: .pluginError, evidence: [error.description])
        }
        let timeout = context.layer.timeoutSeconds ?? ExternalPluginProtocol.defaultTimeoutSeconds
        var request = ExternalPluginRequest(
            runID: context.runID, pipeline: context.pipelineName, runStartedAt: context.runStartTime,
            layer: context.layer, attempt: context.attempt, timeoutSeconds: timeout, hostName: context.hostName,
            remoteRunFolder: context.remoteRunFolder, remoteWorkspace: context.remoteWorkspace,
            simulator: context.simulator, artifactsFolder: context.localArtifacts,
            projectDirectory: context.projectDirectory, localWorkspace: Self.localWorkspace(context))
        request.protocolVersion = version
        request.testsToRetry = context.testsToRetry
        let conversation = try Conversation(
            context: context, executable: executable, timeout: timeout, protocolVersion: version)
        defer { conversation.close() }

        let process: PluginProcess
        do {
            process = try PluginProcess.start(
                executable: executable, arguments: [],
                environment: Self.pluginEnvironment(extra: [
                    "PIPE_PLUGIN_PROTOCOL": "\(version)", "PIPE_RUN_ID": context.runID,
                    "PIPE_LAYER": context.layer.name,
                ]),
                workingDirectory: context.localArtifacts)
        } catch {
            return conversation.failure([error.description])
        }
        let started = Date()
        let ending = process.communicate(
            initialInput: try request.jsonLine(), closeInputAfterwards: false, timeoutSeconds: timeout,
            cancellation: context.cancellation,
            onLine: { conversation.handle(line: $0, deadline: started.addingTimeInterval(timeout)) },
            onStderr: { conversation.stderr($0) })
        return conversation.finish(ending)
    }

    /// The environment a plugin runs with: `inheritedEnvironment` from `pipe`'s own, plus `extra`.
    static func pluginEnvironment(extra: [String: String]) -> [String: String] {
        let own = ProcessInfo.processInfo.environment
        var environment: [String: String] = [:]
        for key in inheritedEnvironment { if let value = own[key] { environment[key] = value } }
        if environment["PATH"] == nil { environment["PATH"] = "/usr/local/bin:/usr/bin:/bin" }
        for (key, value) in extra { environment[key] = value }
        return ChildEnvironment.withoutStoreCredentials(environment)
    }

    /// The run's checkout of the workspace on the coordinator (`.pipe/work/<run id>/checkout/<workspace>`), when it
    /// is there: the commit under test, never the project's work tree.
    static func localWorkspace(_ context: LayerContext) -> URL? {
        let checkout = context.projectDirectory.appendingPathComponent(
            ".pipe/work/\(context.runID)/checkout", isDirectory: true)
        let recordURL = context.projectDirectory.appendingPathComponent("artifacts/\(context.runID)/summary.json")
        guard let record = try? RunRecord.read(from: recordURL) else { return nil }
        let workspace = checkout.appendingPathComponent(record.request.workspace, isDirectory: true)
            .standardizedFileURL
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: workspace.path, isDirectory: &isDirectory), isDirectory.boolValue
        else { return nil }
        return workspace
    }
}
