/// Reads typed values out of YAML nodes, reporting each value of the wrong type (expected vs found) and carrying
/// on, so that one pass finds every problem of a file.
///
/// Type rules, the same for pipelines and hosts files:
/// - text accepts any scalar but a plain boolean or null; a plain number keeps its source text (`16.20` stays
///   `16.20`), a quoted one is text anyway;
/// - integers, booleans and durations refuse quoted text, unless the quotes hold a `${…}` to interpolate;
/// - an empty value (`key:` or `~`) counts as absent.
final class SpecReader {
    let problems: ProblemCollector
    /// `nil` where the format does no interpolation (the hosts file).
    let interpolator: Interpolator?

    init(problems: ProblemCollector, interpolator: Interpolator?) {
        self.problems = problems
        self.interpolator = interpolator
    }

    // MARK: Collections

    /// A reader over a mapping node, or `nil` (reported) when the node is something else.
    func mapping(_ node: YAMLNode, at path: SpecKeyPath, expected: String = "a mapping") -> MappingReader? {
        guard let entries = node.mapping else {
            mismatch(node, at: path, expected: expected)
            return nil
        }
        var first: [MappingReader.Entry] = []
        var seen: Set<String> = []
        for entry in entries {
            guard let key = entry.key.keyText else {
                problems.error(
                    path, at: entry.key.start, "a key must be text, found \(describe(entry.key)); write a plain key")
                continue
            }
            // Repeated keys were reported by the duplicate pass; the first one is the one used.
            if seen.insert(key).inserted {
                first.append(MappingReader.Entry(key: key, keyNode: entry.key, value: entry.value))
            }
        }
        return MappingReader(node: node, path: path, entries: first, reader: self)
    }

    // MARK: Scalars

    /// A text value, interpolated.
    func string(_ node: YAMLNode, at path: SpecKeyPath) -> String? { string(node, at: path, shell: false) }

    /// A text value, interpolated; `shell`: a shell command (`Interpolator`).
    func string(_ node: YAMLNode, at path: SpecKeyPath, shell: Bool) -> String? {
        guard let scalar = scalar(node, at: path, expected: "text") else { return nil }
        if !scalar.isText {
            switch scalar.resolved {
            case .null: return nil
            case .boolean:
                mismatch(node, at: path, expected: "text", hint: "quote it (\"\(scalar.text)\") to mean the text")
                return nil
            default: break
            }
        }
        return interpolate(scalar, node: node, at: path, shell: shell).text
    }

    /// A text value that must not be empty.
    func nonEmptyString(_ node: YAMLNode, at path: SpecKeyPath) -> String? {
        nonEmptyString(node, at: path, shell: false)
    }

    /// A text value that must not be empty; `shell`: a shell command.
    func nonEmptyString(_ node: YAMLNode, at path: SpecKeyPath, shell: Bool) -> String? {
        guard let text = string(node, at: path, shell: shell) else { return nil }
        if text.trimmingSpaces.isEmpty {
            problems.error(path, at: node.start, "must not be empty")
            return nil
        }
        return text
    }

    func integer(_ node: YAMLNode, at path: SpecKeyPath) -> Int? {
        typed(node, at: path, expected: "an integer", parse: YAMLScalar.resolveInteger) { resolved in
            if case .integer(let value) = resolved { return value }
            return nil
        }
    }

    func boolean(_ node: YAMLNode, at path: SpecKeyPath) -> Bool? {
        typed(node, at: path, expected: "a boolean (true or false)", parse: YAMLScalar.resolveBoolean) { resolved in
            if case .boolean(let value) = resolved { return value }
            return nil
        }
    }

    /// A duration in seconds: `90s`, `10m`, `1h`, or a plain number of seconds; quoting does not matter here.
    func duration(_ node: YAMLNode, at path: SpecKeyPath) -> Double? {
        guard let scalar = scalar(node, at: path, expected: DurationParser.expectation) else { return nil }
        if !scalar.isText, scalar.resolved == .null { return nil }
        let value = interpolate(scalar, node: node, at: path)
        guard value.isComplete else { return nil }
        guard let seconds = DurationParser.seconds(from: value.text) else {
            problems.error(
                path, at: node.start, "expected \(DurationParser.expectation), found '\(value.text)'")
            return nil
        }
        return seconds
    }

    /// A size in bytes (`ByteSizeParser`).
    func byteSize(_ node: YAMLNode, at path: SpecKeyPath) -> Int64? {
        guard let scalar = scalar(node, at: path, expected: ByteSizeParser.expectation) else { return nil }
        if !scalar.isText, scalar.resolved == .null { return nil }
        let value = interpolate(scalar, node: node, at: path)
        guard value.isComplete else { return nil }
        guard let bytes = ByteSizeParser.bytes(from: value.text) else {
            problems.error(path, at: node.start, "expected \(ByteSizeParser.expectation), found '\(value.text)'")
            return nil
        }
        return bytes
    }

    /// One of a fixed set of words (`merge`/`release`, `allow`/`block`), with the nearest one suggested.
    func choice<Value: RawRepresentable>(
        _ node: YAMLNode, at path: SpecKeyPath, among cases: [Value]
    ) -> Value? where Value.RawValue == String {
        let names = cases.map(\.rawValue)
        guard let text = string(node, at: path) else { return nil }
        if let value = Value(rawValue: text) { return value }
        problems.error(
            path, at: node.start, "'\(text)' is not one of \(Self.list(names))\(Self.suggestion(text, names))")
        return nil
    }

    /// A list of text values; a single value may be written without brackets.
    func strings(_ node: YAMLNode, at path: SpecKeyPath) -> [(text: String, node: YAMLNode, path: SpecKeyPath)]? {
        strings(node, at: path, shell: false)
    }

    /// A list of text values; `shell`: each a shell command.
    func strings(
        _ node: YAMLNode, at path: SpecKeyPath, shell: Bool
    ) -> [(text: String, node: YAMLNode, path: SpecKeyPath)]? {
        switch node.content {
        case .scalar(let scalar):
            if !scalar.isText, scalar.resolved == .null { return [] }
            return string(node, at: path, shell: shell).map { [($0, node, path)] }
        case .sequence(let items):
            var values: [(text: String, node: YAMLNode, path: SpecKeyPath)] = []
            for (index, item) in items.enumerated() {
                let itemPath = path.appending(index)
                guard let scalar = item.scalar else {
                    mismatch(item, at: itemPath, expected: "text")
                    continue
                }
                if !scalar.isText, scalar.resolved == .null {
                    problems.error(itemPath, at: item.start, "empty entry; write a value or remove the entry")
                    continue
                }
                if let text = string(item, at: itemPath, shell: shell) { values.append((text, item, itemPath)) }
            }
            return values
        case .mapping:
            mismatch(node, at: path, expected: "a list of text values", hint: "write [first, second]")
            return nil
        }
    }

    /// A mapping of text to text (`labels`, `xcodes`, plugin maps).
    func stringMap(_ node: YAMLNode, at path: SpecKeyPath) -> [String: String]? {
        if let scalar = node.scalar, !scalar.isText, scalar.resolved == .null { return [:] }
        guard let mapping = mapping(node, at: path, expected: "a mapping of text to text") else { return nil }
        var result: [String: String] = [:]
        for entry in mapping.entries {
            let entryPath = path.appending(entry.key)
            guard let scalar = entry.value.scalar else {
                mismatch(entry.value, at: entryPath, expected: "text")
                continue
            }
            if !scalar.isText, scalar.resolved == .null {
                problems.error(entryPath, at: entry.value.start, "needs a value (write \"\" for the empty text)")
                continue
            }
            if let text = string(entry.value, at: entryPath) { result[entry.key] = text }
        }
        return result
    }

    // MARK: Helpers

    /// The scalar of `node`, or `nil` (reported) when it is a list or a mapping.
    func scalar(_ node: YAMLNode, at path: SpecKeyPath, expected: String) -> YAMLScalar? {
        guard let scalar = node.scalar else {
            mismatch(node, at: path, expected: expected)
            return nil
        }
        return scalar
    }

    /// Interpolates a scalar exactly once (never twice: the result is not scanned again).
    func interpolate(
        _ scalar: YAMLScalar, node: YAMLNode, at path: SpecKeyPath, shell: Bool = false
    ) -> Interpolator.Result {
        guard let interpolator else {
            return Interpolator.Result(text: scalar.text, isComplete: true, didInterpolate: false)
        }
        let marks =
            scalar.text.contains("${") ? problems.source.interpolationMarks(from: node.start, to: node.end) : []
        return interpolator.interpolate(
            scalar.text, marks: marks, fallback: node.start, path: path, problems: problems, shell: shell)
    }

    private func typed<Value>(
        _ node: YAMLNode, at path: SpecKeyPath, expected: String, parse: (String) -> Value?,
        fromResolved: (YAMLScalar.Resolved) -> Value?
    ) -> Value? {
        guard let scalar = scalar(node, at: path, expected: expected) else { return nil }
        if !scalar.isText, scalar.resolved == .null { return nil }
        let value = interpolate(scalar, node: node, at: path)
        if value.didInterpolate {
            guard value.isComplete else { return nil }
            if let parsed = parse(value.text.trimmingSpaces) { return parsed }
            problems.error(path, at: node.start, "expected \(expected), found '\(value.text)' after interpolation")
            return nil
        }
        if !scalar.isText, let parsed = fromResolved(scalar.resolved) { return parsed }
        let hint = scalar.isText && parse(scalar.text) != nil ? "remove the quotes" : nil
        mismatch(node, at: path, expected: expected, hint: hint)
        return nil
    }

    /// Reports "expected X, found Y".
    func mismatch(_ node: YAMLNode, at path: SpecKeyPath, expected: String, hint: String? = nil) {
        var message = "expected \(expected), found \(describe(node))"
        if let hint { message += "; \(hint)" }
        problems.error(path, at: node.start, message)
    }

    /// What a node is, for messages: `a list`, `the boolean 'yes'`, `the quoted text "16"`.
    func describe(_ node: YAMLNode) -> String {
        switch node.content {
        case .mapping: return "a mapping"
        case .sequence: return "a list"
        case .scalar(let scalar):
            if scalar.isText {
                switch scalar.style {
                case .literal, .folded: return "a block of text"
                default: return "the quoted text \"\(scalar.text)\""
                }
            }
            switch scalar.resolved {
            case .null: return "an empty value"
            case .boolean: return "the boolean '\(scalar.text)'"
            case .integer: return "the integer \(scalar.text)"
            case .number: return "the number \(scalar.text)"
            case .string: return "the text '\(scalar.text)'"
            }
        }
    }

    /// `'a', 'b' or 'c'`.
    static func list(_ names: [String]) -> String {
        let quoted = names.map { "'\($0)'" }
        guard quoted.count > 1 else { return quoted.first ?? "nothing" }
        return quoted.dropLast().joined(separator: ", ") + " or " + quoted[quoted.count - 1]
    }

    /// `; did you mean 'timeout'?` or nothing.
    static func suggestion(_ word: String, _ candidates: [String]) -> String {
        EditDistanceSuggestion.text(for: word, among: candidates)
    }
}
