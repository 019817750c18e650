/// One mapping being decoded: looks keys up, reports missing and unknown keys with the nearest valid one.
struct MappingReader {
    struct Entry {
        var key: String
        var keyNode: YAMLNode
        var value: YAMLNode
    }

    let node: YAMLNode
    let path: SpecKeyPath
    /// Each key's first occurrence, in file order.
    let entries: [Entry]
    let reader: SpecReader

    /// The value written for `key`, `nil` when the key is absent or its value is empty (`key:` or `~`).
    func value(_ key: String) -> YAMLNode? {
        guard let entry = entries.first(where: { $0.key == key }) else { return nil }
        if let scalar = entry.value.scalar, !scalar.isText, scalar.resolved == .null { return nil }
        return entry.value
    }

    func contains(_ key: String) -> Bool { entries.contains { $0.key == key } }

    /// The value for a key that must be there; reports a missing key at the mapping, an empty one at the key.
    func required(_ key: String, hint: String = "") -> YAMLNode? {
        if let value = value(key) { return value }
        let suffix = hint.isEmpty ? "" : "; \(hint)"
        if let entry = entries.first(where: { $0.key == key }) {
            reader.problems.error(path.appending(key), at: entry.value.start, "needs a value\(suffix)")
        } else {
            reader.problems.error(path, at: node.start, "missing required key '\(key)'\(suffix)")
        }
        return nil
    }

    /// Reports every key not in `allowed`, suggesting the nearest allowed one.
    func rejectUnknownKeys(allowed: [String]) {
        let known = Set(allowed)
        for entry in entries where !known.contains(entry.key) {
            var message = "unknown key"
            let suggestion = SpecReader.suggestion(entry.key, allowed)
            message += suggestion.isEmpty ? "; expected one of \(SpecReader.list(allowed.sorted()))" : suggestion
            reader.problems.error(path.appending(entry.key), at: entry.keyNode.start, message)
        }
    }

    /// Decodes a key's value with one of `SpecReader`'s typed readers.
    func read<Value>(_ key: String, _ decode: (SpecReader) -> (YAMLNode, SpecKeyPath) -> Value?) -> Value? {
        guard let node = value(key) else { return nil }
        return decode(reader)(node, path.appending(key))
    }
}
