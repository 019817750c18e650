import Foundation

/// Writes a `FileShape` as a JSON Schema (draft 2020-12) that YAML editors use to complete and check a file.
///
/// The schema says what the loader's key and type checks say; checks that need the whole file (a `needs` naming a
/// layer, a cron expression) stay with `pipe validate`.
public enum JSONSchemaWriter {
    public static let draft = "https://json-schema.org/draft/2020-12/schema"

    /// The schema as pretty-printed JSON with sorted keys (stable, so `docs/schema/` copies can be compared).
    public static func text(for file: FileShape) -> String {
        var root = mapping(file.root, interpolates: file.interpolates)
        root["$schema"] = draft
        root["$id"] = "urn:pipe:schema:\(file.kind)"
        root["title"] = file.title
        let data = try? JSONSerialization.data(
            withJSONObject: root, options: [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes])
        return (data.flatMap { String(data: $0, encoding: .utf8) } ?? "{}") + "\n"
    }

    /// `${name}` in a value of any type: the loader checks the type after interpolation.
    static let interpolation: [String: Any] = ["type": "string", "pattern": "\\$\\{"]
    /// `DurationParser`'s forms, more than zero (a digit 1-9 somewhere).
    static let durationPattern =
        "^(?=[^1-9]*[1-9])[ \\t]*((([0-9]+\\.?[0-9]*|\\.[0-9]+)[smhd])+|[0-9]+\\.?[0-9]*|\\.[0-9]+)[ \\t]*$"
    /// `ByteSizeParser`'s forms, more than zero.
    static let byteSizePattern = "^(?=[ 0]*[1-9])[0-9 ]+(([kKmMgGtT][iI]?)?[bB])? *$"

    static func schema(_ shape: ValueShape, interpolates: Bool) -> [String: Any] {
        func typed(_ schema: [String: Any]) -> [String: Any] {
            interpolates ? ["anyOf": [schema, interpolation]] : schema
        }
        switch shape {
        case .text: return ["type": ["string", "number"]]
        case .nonEmptyText: return ["type": ["string", "number"], "pattern": "[^ \\t]"]
        case .integer(let range):
            var schema: [String: Any] = ["type": "integer"]
            if let range {
                schema["minimum"] = range.lowerBound
                schema["maximum"] = range.upperBound
            }
            return typed(schema)
        case .boolean: return typed(["type": "boolean"])
        case .duration:
            // A string duration may hold `${…}` as well, so the interpolation case is already inside.
            var text: [String: Any] = ["type": "string", "pattern": durationPattern]
            if interpolates { text = ["anyOf": [text, interpolation]] }
            return ["anyOf": [["type": "number", "exclusiveMinimum": 0], text]]
        case .byteSize:
            var text: [String: Any] = ["type": "string", "pattern": byteSizePattern]
            if interpolates { text = ["anyOf": [text, interpolation]] }
            return ["anyOf": [["type": "integer", "minimum": 1], text]]
        case .choice(let words): return typed(["enum": words])
        case .list(let item): return ["type": "array", "items": schema(item, interpolates: interpolates)]
        case .mapping(let mapping): return self.mapping(mapping, interpolates: interpolates)
        case .named(let value, let keyPattern):
            var schema: [String: Any] = [
                "type": "object", "additionalProperties": self.schema(value, interpolates: interpolates),
            ]
            if let keyPattern { schema["propertyNames"] = ["pattern": keyPattern] }
            return schema
        case .tagged(let key, let common, let variants):
            return tagged(key: key, common: common, variants: variants, interpolates: interpolates)
        case .either(let shapes): return ["anyOf": shapes.map { schema($0, interpolates: interpolates) }]
        case .empty: return ["type": "null"]
        case .anything: return [:]
        }
    }

    static func mapping(_ mapping: MappingShape, interpolates: Bool) -> [String: Any] {
        var properties: [String: Any] = [:]
        for key in mapping.keys {
            var property = schema(key.value, interpolates: interpolates)
            if !key.summary.isEmpty { property["description"] = key.summary }
            properties[key.key] = property
        }
        var schema: [String: Any] = ["type": "object", "properties": properties]
        if !mapping.allowsOtherKeys { schema["additionalProperties"] = false }
        let required = mapping.keys.filter(\.required).map(\.key)
        if !required.isEmpty { schema["required"] = required }
        if !mapping.summary.isEmpty { schema["description"] = mapping.summary }
        return schema
    }

    /// One `if`/`then` per variant: with `key: <variant>`, the mapping takes the common keys and the variant's.
    static func tagged(
        key: String, common: MappingShape, variants: [String: MappingShape], interpolates: Bool
    ) -> [String: Any] {
        var schema = mapping(common, interpolates: interpolates)
        schema["additionalProperties"] = nil
        var properties = schema["properties"] as? [String: Any] ?? [:]
        var tag = properties[key] as? [String: Any] ?? [:]
        tag["enum"] = variants.keys.sorted()
        tag["type"] = nil
        properties[key] = tag
        schema["properties"] = properties
        schema["allOf"] = variants.keys.sorted().map { name -> [String: Any] in
            let variant = common.adding(variants[name]?.keys ?? [])
            return [
                "if": ["properties": [key: ["const": name]], "required": [key]],
                "then": mapping(variant, interpolates: interpolates),
            ]
        }
        return schema
    }
}
