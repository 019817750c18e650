import Foundation
import PipeCore

/// One line a plugin writes on stdout: a log line, a test result, a command to run on the host, or the result.
public enum ExternalPluginMessage: Sendable, Equatable {
    case log(String)
    case test(TestCaseResult)
    /// Run `argv` on the host in the workspace and reply on stdin with a `host-command-result` of the same `id`.
    case hostCommand(id: String, argv: [String], timeoutSeconds: Double)
    case result(ExternalPluginResult)

    /// Parses one stdout line of a plugin that speaks protocol `version`; every way it can be wrong is a protocol
    /// violation with a message saying which.
    public static func parse(
        _ line: String, version speaking: Int = ExternalPluginProtocol.version
    ) throws(ExternalPluginProtocolViolation) -> ExternalPluginMessage {
        let object: [String: Any]
        do {
            guard let parsed = try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any] else {
                throw ExternalPluginProtocolViolation("a line on stdout is not a JSON object: \(excerpt(line))")
            }
            object = parsed
        } catch let violation as ExternalPluginProtocolViolation {
            throw violation
        } catch {
            throw ExternalPluginProtocolViolation("malformed JSON on stdout: \(excerpt(line))")
        }
        if let version = object["protocol"] {
            guard let number = version as? Int, !(version is String) else {
                throw ExternalPluginProtocolViolation(
                    "\"protocol\" must be a number (the plugin declared \(speaking))")
            }
            guard number == speaking else {
                throw ExternalPluginProtocolViolation(
                    "the message says protocol \(number), but the plugin declared \(speaking) in its description")
            }
        }
        guard let type = object["type"] as? String else {
            throw ExternalPluginProtocolViolation("a message has no \"type\": \(excerpt(line))")
        }
        let reader = FieldReader(object: object, type: type)
        switch type {
        case "log":
            return .log(try reader.string("text"))
        case "test":
            let statusText = try reader.string("status")
            guard let status = TestCaseResult.Status(rawValue: statusText) else {
                throw reader.violation(
                    "\"status\" is \"\(statusText)\", expected one of passed, failed, skipped, expected-failure")
            }
            return .test(
                TestCaseResult(
                    identifier: try reader.string("identifier"), status: status,
                    durationSeconds: try reader.optionalNumber("durationSeconds"),
                    failureMessage: try reader.optionalString("failureMessage"),
                    failureLocation: try reader.optionalString("failureLocation"),
                    // Protocol 1 has no `target`: a retry of its tests runs the whole layer again.
                    target: speaking >= ExternalPluginProtocol.testsToRetryVersion
                        ? try reader.optionalString("target") : nil))
        case "host-command":
            let argv = try reader.strings("argv")
            guard !argv.isEmpty else { throw reader.violation("\"argv\" is empty") }
            return .hostCommand(
                id: try reader.string("id"), argv: argv,
                timeoutSeconds: try reader.optionalNumber("timeoutSeconds") ?? 60)
        case "result":
            guard object["protocol"] != nil else {
                throw reader.violation(
                    "the result has no \"protocol\"; write \"protocol\": \(speaking)")
            }
            let outcomeText = try reader.string("outcome")
            guard ExternalPluginProtocol.reportableOutcomes.contains(outcomeText),
                let outcome = LayerOutcome(rawValue: outcomeText)
            else {
                throw reader.violation(
                    "\"outcome\" is \"\(outcomeText)\", expected one of "
                        + ExternalPluginProtocol.reportableOutcomes.joined(separator: ", "))
            }
            var artifacts: [ExternalPluginResult.Artifact] = []
            if let list = object["artifacts"] {
                guard let entries = list as? [[String: Any]] else {
                    throw reader.violation("\"artifacts\" must be a list of {\"path\": …, \"kind\": …} objects")
                }
                for entry in entries {
                    let entryReader = FieldReader(object: entry, type: "result artifact")
                    let kindText = try entryReader.optionalString("kind") ?? ArtifactRecord.Kind.other.rawValue
                    guard let kind = ArtifactRecord.Kind(rawValue: kindText) else {
                        throw entryReader.violation("\"kind\" is \"\(kindText)\", not an artifact kind")
                    }
                    artifacts.append(.init(path: try entryReader.string("path"), kind: kind))
                }
            }
            var facts: [String: String] = [:]
            if let given = object["facts"] {
                guard let map = given as? [String: String] else {
                    throw reader.violation("\"facts\" must be an object of strings")
                }
                facts = map
            }
            return .result(
                ExternalPluginResult(
                    outcome: outcome, evidence: try reader.optionalStrings("evidence") ?? [], facts: facts,
                    artifacts: artifacts))
        default:
            throw ExternalPluginProtocolViolation(
                "unknown message type \"\(type)\" (protocol \(speaking) has log, test, "
                    + "host-command, result)")
        }
    }

    static func excerpt(_ line: String) -> String {
        let trimmed = line.trimmingCharacters(in: .whitespacesAndNewlines)
        return trimmed.count > 200 ? "`\(trimmed.prefix(200))…`" : "`\(trimmed)`"
    }
}

/// Typed access to one message's fields, with messages that name the message type and the field.
private struct FieldReader {
    var object: [String: Any]
    var type: String

    func violation(_ message: String) -> ExternalPluginProtocolViolation {
        ExternalPluginProtocolViolation("\(type) message: \(message)")
    }

    func string(_ key: String) throws(ExternalPluginProtocolViolation) -> String {
        guard let value = object[key] as? String else { throw violation("\"\(key)\" must be a string") }
        return value
    }

    func optionalString(_ key: String) throws(ExternalPluginProtocolViolation) -> String? {
        guard let value = object[key], !(value is NSNull) else { return nil }
        guard let text = value as? String else { throw violation("\"\(key)\" must be a string") }
        return text
    }

    func optionalNumber(_ key: String) throws(ExternalPluginProtocolViolation) -> Double? {
        guard let value = object[key], !(value is NSNull) else { return nil }
        guard let number = value as? NSNumber else { throw violation("\"\(key)\" must be a number") }
        return number.doubleValue
    }

    func strings(_ key: String) throws(ExternalPluginProtocolViolation) -> [String] {
        guard let value = object[key] as? [String] else { throw violation("\"\(key)\" must be a list of strings") }
        return value
    }

    func optionalStrings(_ key: String) throws(ExternalPluginProtocolViolation) -> [String]? {
        guard let value = object[key], !(value is NSNull) else { return nil }
        guard let list = value as? [String] else { throw violation("\"\(key)\" must be a list of strings") }
        return list
    }
}
