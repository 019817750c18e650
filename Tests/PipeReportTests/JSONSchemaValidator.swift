import Foundation
import PipeReport

/// A validator for the subset of JSON Schema (draft 2020-12) that `docs/schema/run-record.schema.json` uses:
/// `type`, `required`, `properties`, `additionalProperties` (`false` or a schema), `enum`, `items`, and `$ref` to
/// `#/$defs/…`. Annotations (`$schema`, `$id`, `title`, `description`, `$comment`) are ignored.
///
/// Any other keyword makes `init` throw: a schema that starts using `pattern` or `minimum` must not pass here
/// silently while nothing checks it.
struct JSONSchemaValidator {
    struct UnsupportedSchema: Error, CustomStringConvertible {
        var description: String
    }

    static let assertions: Set<String> = [
        "type", "required", "properties", "additionalProperties", "enum", "items", "$ref", "$defs",
    ]
    static let annotations: Set<String> = ["$schema", "$id", "title", "description", "$comment"]

    let root: [String: Any]

    init(schema: Any) throws {
        guard let root = schema as? [String: Any] else {
            throw UnsupportedSchema(description: "the schema is not an object")
        }
        self.root = root
        try Self.check(root, at: "#")
    }

    /// Every place where `instance` breaks the schema, as `JSON pointer: problem`; empty when it is valid.
    func validate(_ instance: Any) -> [String] {
        var errors: [String] = []
        validate(instance, against: root, at: "", errors: &errors)
        return errors
    }

    private func validate(_ value: Any, against schema: [String: Any], at path: String, errors: inout [String]) {
        let place = path.isEmpty ? "/" : path
        if let reference = schema["$ref"] as? String {
            guard let target = resolve(reference) else {
                errors.append("\(place): $ref \(reference) points nowhere")
                return
            }
            validate(value, against: target, at: path, errors: &errors)
        }
        if let type = schema["type"] as? String, !Self.matches(value, type: type) {
            errors.append("\(place): expected \(type), found \(Self.describe(value))")
            return
        }
        if let options = schema["enum"] as? [Any], !options.contains(where: { Self.equal($0, value) }) {
            errors.append("\(place): \(Self.describe(value)) is not one of \(options)")
        }
        if let object = value as? [String: Any] {
            let properties = schema["properties"] as? [String: Any] ?? [:]
            for key in schema["required"] as? [String] ?? [] where object[key] == nil {
                errors.append("\(place): the required key \"\(key)\" is missing")
            }
            for (key, member) in object.sorted(by: { $0.key < $1.key }) {
                let memberPath = path + "/" + key
                if let propertySchema = properties[key] as? [String: Any] {
                    validate(member, against: propertySchema, at: memberPath, errors: &errors)
                } else if let additional = schema["additionalProperties"] {
                    if let allowed = additional as? Bool {
                        if !allowed { errors.append("\(place): the key \"\(key)\" is not in the schema") }
                    } else if let additionalSchema = additional as? [String: Any] {
                        validate(member, against: additionalSchema, at: memberPath, errors: &errors)
                    }
                }
            }
        }
        if let array = value as? [Any], let items = schema["items"] as? [String: Any] {
            for (index, element) in array.enumerated() {
                validate(element, against: items, at: path + "/\(index)", errors: &errors)
            }
        }
    }

    private func resolve(_ reference: String) -> [String: Any]? {
        guard reference.hasPrefix("#/$defs/") else { return nil }
        let name = String(reference.dropFirst("#/$defs/".count))
        return (root["$defs"] as? [String: Any])?[name] as? [String: Any]
    }

    private static func check(_ schema: [String: Any], at path: String) throws {
        for (key, value) in schema {
            guard assertions.contains(key) || annotations.contains(key) else {
                throw UnsupportedSchema(
                    description: "\(path): the keyword \"\(key)\" is not supported by this validator")
            }
            switch key {
            case "properties", "$defs":
                guard let members = value as? [String: Any] else {
                    throw UnsupportedSchema(description: "\(path)/\(key) is not an object")
                }
                for (name, member) in members {
                    guard let memberSchema = member as? [String: Any] else {
                        throw UnsupportedSchema(description: "\(path)/\(key)/\(name) is not a schema")
                    }
                    try check(memberSchema, at: "\(path)/\(key)/\(name)")
                }
            case "items":
                guard let items = value as? [String: Any] else {
                    throw UnsupportedSchema(description: "\(path)/items is not a schema")
                }
                try check(items, at: "\(path)/items")
            case "additionalProperties":
                if let additional = value as? [String: Any] {
                    try check(additional, at: "\(path)/additionalProperties")
                } else if !(value is Bool) {
                    throw UnsupportedSchema(
                        description: "\(path)/additionalProperties is neither a schema nor a boolean")
                }
            case "type":
                guard let type = value as? String,
                    ["object", "array", "string", "integer", "number", "boolean", "null"].contains(type)
                else { throw UnsupportedSchema(description: "\(path)/type must be one type name") }
            case "$ref":
                guard let reference = value as? String, reference.hasPrefix("#/$defs/") else {
                    throw UnsupportedSchema(description: "\(path)/$ref must point into #/$defs/")
                }
            default:
                break
            }
        }
    }

    /// Types as `JSONReader` returns values: `Bool`, `Int`, `Double`, `String`, `[Any]`, `[String: Any]`, `NSNull`.
    private static func matches(_ value: Any, type: String) -> Bool {
        switch type {
        case "object": return value is [String: Any]
        case "array": return value is [Any]
        case "string": return value is String
        case "boolean": return value is Bool
        case "null": return value is NSNull
        case "integer":
            if value is Int { return true }
            if let number = value as? Double { return number.rounded() == number }
            return false
        case "number": return value is Int || value is Double
        default: return false
        }
    }

    private static func equal(_ lhs: Any, _ rhs: Any) -> Bool {
        switch (lhs, rhs) {
        case (let left as String, let right as String): return left == right
        case (let left as Int, let right as Int): return left == right
        case (let left as Bool, let right as Bool): return left == right
        default: return false
        }
    }

    private static func describe(_ value: Any) -> String {
        switch value {
        case let text as String: return "\"\(text)\""
        case is [String: Any]: return "an object"
        case is [Any]: return "an array"
        case is NSNull: return "null"
        default: return "\(value)"
        }
    }
}

extension JSONSchemaValidator {
    /// Reads a file with `JSONReader`, which keeps `Bool`, `Int` and `Double` apart (`JSONSerialization` does not,
    /// on every platform).
    static func readJSON(_ url: URL) throws -> Any {
        let result = JSONReader.read(try Data(contentsOf: url))
        if let problem = result.problem { throw UnsupportedSchema(description: "\(url.path): \(problem)") }
        guard let value = result.value else { throw UnsupportedSchema(description: "\(url.path) is empty") }
        return value
    }
}
