import Foundation
import PipeBasics
import PipeCore

/// The one request Pipe writes, as a single JSON line, on an external plugin's stdin.
public struct ExternalPluginRequest: Sendable {
    public var runID: String
    public var pipeline: String
    public var runStartedAt: Date
    public var layer: LayerSpec
    public var attempt: Int
    public var timeoutSeconds: Double
    public var hostName: String
    public var remoteRunFolder: String
    public var remoteWorkspace: String
    public var simulator: Simulator?
    public var artifactsFolder: URL
    public var projectDirectory: URL
    /// The run's checkout of the workspace on the coordinator (the commit under test), when there is one.
    public var localWorkspace: URL?
    /// The version the plugin declared: the request is written in it.
    public var protocolVersion = ExternalPluginProtocol.version
    /// The failed tests a test retry runs again (`LayerContext.testsToRetry`); sent from protocol 2 on.
    public var testsToRetry: [TestCaseResult] = []

    public init(
        runID: String, pipeline: String, runStartedAt: Date, layer: LayerSpec, attempt: Int, timeoutSeconds: Double,
        hostName: String, remoteRunFolder: String, remoteWorkspace: String, simulator: Simulator?,
        artifactsFolder: URL, projectDirectory: URL, localWorkspace: URL?
    ) {
        self.runID = runID
        self.pipeline = pipeline
        self.runStartedAt = runStartedAt
        self.layer = layer
        self.attempt = attempt
        self.timeoutSeconds = timeoutSeconds
        self.hostName = hostName
        self.remoteRunFolder = remoteRunFolder
        self.remoteWorkspace = remoteWorkspace
        self.simulator = simulator
        self.artifactsFolder = artifactsFolder
        self.projectDirectory = projectDirectory
        self.localWorkspace = localWorkspace
    }

    /// The request as a JSON object (keys as in the schema).
    public var jsonObject: [String: Any] {
        var simulatorObject: Any = NSNull()
        if let simulator {
            simulatorObject = [
                "udid": simulator.udid, "name": simulator.name, "runtime": simulator.runtimeName,
                "runtimeIdentifier": simulator.runtimeIdentifier, "platform": simulator.platform,
                "runtimeVersion": simulator.runtimeVersion,
            ]
        }
        var layerObject: [String: Any] = [
            "name": layer.name, "kind": layer.plugin, "gate": layer.gate.rawValue, "attempt": attempt,
            "timeoutSeconds": timeoutSeconds, "settings": layer.settings.mapValues(Self.plain),
        ]
        if protocolVersion >= ExternalPluginProtocol.testsToRetryVersion {
            layerObject["testsToRetry"] = testsToRetry.map { test -> [String: Any] in
                var entry: [String: Any] = ["identifier": test.identifier, "status": test.status.rawValue]
                if let target = test.target { entry["target"] = target }
                return entry
            }
        }
        return [
            "protocol": protocolVersion,
            "type": "run",
            "run": ["id": runID, "pipeline": pipeline, "startedAt": UTCTimestamp.iso8601(runStartedAt)],
            "layer": layerObject,
            "host": ["name": hostName, "runFolder": remoteRunFolder, "workspace": remoteWorkspace],
            "simulator": simulatorObject,
            "local": [
                "artifacts": artifactsFolder.path, "projectDirectory": projectDirectory.path,
                "workspace": localWorkspace.map { $0.path as Any } ?? NSNull(),
            ] as [String: Any],
        ]
    }

    /// One line of JSON, newline included.
    public func jsonLine() throws -> Data {
        try JSONSerialization.data(withJSONObject: jsonObject, options: [.sortedKeys, .withoutEscapingSlashes])
            + Data("\n".utf8)
    }

    /// A setting as plain JSON: a string, number, boolean, array of strings or object of strings.
    static func plain(_ value: SettingValue) -> Any {
        switch value {
        case .string(let text): return text
        case .integer(let number): return number
        case .boolean(let flag): return flag
        case .strings(let list): return list
        case .map(let map): return map
        }
    }
}
