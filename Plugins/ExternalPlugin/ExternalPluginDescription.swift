import Foundation
import PipeCore

/// What `pipe-layer-<kind> --describe` prints: the kind, a summary, the default gate and the settings a layer of
/// this kind accepts, so `pipe validate` checks external layers as strictly as built-in ones.
public struct ExternalPluginDescription: Sendable, Equatable {
    public var kind: String
    public var summary: String
    public var defaultGate: Gate
    public var settings: [SettingSchema]
    /// The protocol version the plugin speaks (one of `ExternalPluginProtocol.supportedVersions`).
    public var protocolVersion: Int

    public init(
        kind: String, summary: String, defaultGate: Gate, settings: [SettingSchema],
        protocolVersion: Int = ExternalPluginProtocol.version
    ) {
        self.kind = kind
        self.summary = summary
        self.defaultGate = defaultGate
        self.settings = settings
        self.protocolVersion = protocolVersion
    }

    /// Setting types as a description writes them.
    static let typeNames: [String: SettingSchema.ValueType] = [
        "string": .string, "integer": .integer, "boolean": .boolean, "strings": .strings, "map": .map,
    ]

    /// Parses a description; `expectedKind` is the kind the executable's name promises.
    public static func parse(_ data: Data, expectedKind: String) throws(ExternalPluginProtocolViolation)
        -> ExternalPluginDescription
    {
        let text = String(decoding: data, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
        guard let object = (try? JSONSerialization.jsonObject(with: Data(text.utf8))) as? [String: Any] else {
            throw ExternalPluginProtocolViolation(
                "the description is not one JSON object: \(ExternalPluginMessage.excerpt(text))")
        }
        guard let version = object["protocol"] as? Int else {
            throw ExternalPluginProtocolViolation("the description has no \"protocol\" number")
        }
        guard ExternalPluginProtocol.supportedVersions.contains(version) else {
            throw ExternalPluginProtocolViolation(
                "the plugin speaks protocol \(version), this Pipe speaks \(ExternalPluginProtocol.supportedText)")
        }
        guard let kind = object["kind"] as? String, kind == expectedKind else {
            throw ExternalPluginProtocolViolation(
                "the description's \"kind\" is \(object["kind"].map { "\"\($0)\"" } ?? "missing"), but the "
                    + "executable is named for '\(expectedKind)'")
        }
        var gate = Gate.merge
        if let gateText = object["gate"] {
            guard let text = gateText as? String, let value = Gate(rawValue: text) else {
                throw ExternalPluginProtocolViolation("\"gate\" must be \"merge\" or \"release\"")
            }
            gate = value
        }
        var settings: [SettingSchema] = []
        for entry in object["settings"] as? [[String: Any]] ?? [] {
            guard let key = entry["key"] as? String, !key.isEmpty else {
                throw ExternalPluginProtocolViolation("a setting has no \"key\"")
            }
            guard let typeName = entry["type"] as? String, let type = typeNames[typeName] else {
                throw ExternalPluginProtocolViolation(
                    "setting \(key): \"type\" must be one of \(typeNames.keys.sorted().joined(separator: ", "))")
            }
            if ["plugin", "gate", "needs", "timeout"].contains(key) {
                throw ExternalPluginProtocolViolation("setting \(key): the name is taken by every layer")
            }
            let shell = entry["shell"] ?? false
            guard let isShellCommand = shell as? Bool, !isShellCommand || [.string, .strings].contains(type) else {
                throw ExternalPluginProtocolViolation(
                    "setting \(key): \"shell\" must be true or false, and true only for a string or strings")
            }
            settings.append(
                SettingSchema(
                    key, type, required: entry["required"] as? Bool ?? false, shellCommand: isShellCommand,
                    entry["summary"] as? String ?? ""))
        }
        if object["settings"] != nil && !(object["settings"] is [[String: Any]]) {
            throw ExternalPluginProtocolViolation("\"settings\" must be a list of {\"key\", \"type\", …} objects")
        }
        return ExternalPluginDescription(
            kind: kind, summary: object["summary"] as? String ?? "", defaultGate: gate, settings: settings,
            protocolVersion: version)
    }
}
