import CYAML

/// Reads one YAML document into a `YAMLNode` tree with libyaml's event API.
///
/// The only file that imports `CYAML`. Aliases are resolved (bounded, so a "billion laughs" file is refused, not
/// expanded), `<<` merge keys are applied, and a file with several documents is refused. A syntax error becomes a
/// single `SpecProblem` at `file:line:column` with the source line and a caret under the column.
public enum YAMLParser {
    /// Nodes that aliases may add to a document; far above any real pipeline, far below what hurts.
    public static let aliasExpansionLimit = 100_000

    /// Parses `text`; `nil` when the file holds no document (empty, or only comments).
    public static func parse(_ text: String, file: String) throws(SpecErrors) -> YAMLNode? {
        try parse(bytes: Array(text.utf8), source: SourceText(text), file: file)
    }

    /// Parses raw bytes, so that libyaml reports text that is not UTF-8 with its position.
    static func parse(bytes: [UInt8], source: SourceText, file: String) throws(SpecErrors) -> YAMLNode? {
        if bytes.isEmpty { return nil }
        var builder = TreeBuilder(file: file, source: source)
        // The parser reads from `buffer` until `yaml_parser_delete`; both live inside this closure, so the input
        // always outlives the parser.
        let outcome: Result<YAMLNode?, SpecErrors> = bytes.withUnsafeBufferPointer { buffer in
            let parser = UnsafeMutablePointer<yaml_parser_t>.allocate(capacity: 1)
            defer { parser.deallocate() }
            guard yaml_parser_initialize(parser) == 1 else {
                return .failure(SpecErrors(SpecProblem(file: file, mark: nil, message: "out of memory reading YAML")))
            }
            defer { yaml_parser_delete(parser) }
            yaml_parser_set_input_string(parser, buffer.baseAddress, buffer.count)
            var event = yaml_event_t()
            while true {
                guard yaml_parser_parse(parser, &event) == 1 else {
                    return .failure(SpecErrors(syntaxProblem(parser.pointee, bytes: bytes, source: source, file: file)))
                }
                defer { yaml_event_delete(&event) }
                do throws(SpecErrors) {
                    if try builder.handle(event) { return .success(builder.root) }
                } catch {
                    return .failure(error)
                }
            }
        }
        return try outcome.get()
    }

    /// One libyaml error as a problem, placed where a person would look for the mistake.
    private static func syntaxProblem(
        _ parser: yaml_parser_t, bytes: [UInt8], source: SourceText, file: String
    ) -> SpecProblem {
        let problem = parser.problem.map { String(cString: $0) } ?? "unknown problem"
        let context = parser.context.map { String(cString: $0) }
        var mark = SourceMark(parser.problem_mark)
        let contextMark = SourceMark(parser.context_mark)
        var message: String
        switch parser.error {
        case YAML_MEMORY_ERROR:
            return SpecProblem(file: file, mark: nil, message: "out of memory reading YAML")
        case YAML_READER_ERROR:
            // libyaml names the byte where decoding failed, often the one after the character that is wrong.
            var offset = min(parser.problem_offset, bytes.count)
            if problem.contains("trailing") || problem.contains("incomplete") {
                while offset > 0, bytes[offset - 1] & 0xC0 == 0x80 { offset -= 1 }
                if offset > 0 { offset -= 1 }
            }
            mark = SourceText.mark(ofByteOffset: offset, in: bytes)
            let byte = offset < bytes.count ? " at byte 0x\(String(bytes[offset], radix: 16, uppercase: true))" : ""
            message = "this is not UTF-8 text (\(problem)\(byte)); save the file as UTF-8"
        default:
            message = "invalid YAML: \(problem)"
            if let context {
                message += " (\(context) at line \(contextMark.line), column \(contextMark.column))"
            }
            if problem.contains("end of stream"), context != nil {
                // An unclosed quote or bracket: the end of the file is not where the mistake is.
                mark = contextMark
                message += "; it is never closed: add the closing character"
            } else if problem == "mapping values are not allowed in this context" {
                message += "; a ': ' inside a value starts a mapping: put the value in quotes"
            } else if problem.hasPrefix("did not find expected ','") {
                message += "; inside [ ] or { }, quote values that hold '${', braces, brackets or commas"
            } else if source.lines[safe: mark.line - 1]?[safe: mark.column - 1] == "\t" {
                message += "; YAML does not allow tabs for indentation: indent with spaces"
            }
        }
        return SpecProblem(file: file, mark: mark, message: message, snippet: source.snippet(at: mark))
    }
}

extension SourceMark {
    /// libyaml counts from 0.
    fileprivate init(_ mark: yaml_mark_t) {
        self.init(line: Int(mark.line) + 1, column: Int(mark.column) + 1)
    }
}

extension Array {
    fileprivate subscript(safe index: Int) -> Element? {
        indices.contains(index) ? self[index] : nil
    }
}

/// Builds the tree from libyaml's events: a stack of open collections, anchors by name.
private struct TreeBuilder {
    private enum Frame {
        case sequence(items: [YAMLNode], start: SourceMark, anchor: String?, count: Int)
        case mapping(entries: [YAMLMappingEntry], key: YAMLNode?, start: SourceMark, anchor: String?, count: Int)
    }

    let file: String
    let source: SourceText
    private(set) var root: YAMLNode?
    private var stack: [Frame] = []
    /// Each anchor's node and its node count (kept so an alias of an alias costs nothing to measure).
    private var anchors: [String: (node: YAMLNode, count: Int)] = [:]
    private var documents = 0
    private var aliasNodes = 0

    init(file: String, source: SourceText) {
        self.file = file
        self.source = source
    }

    /// Handles one event; `true` at the end of the stream.
    mutating func handle(_ event: yaml_event_t) throws(SpecErrors) -> Bool {
        let start = SourceMark(line: Int(event.start_mark.line) + 1, column: Int(event.start_mark.column) + 1)
        let end = SourceMark(line: Int(event.end_mark.line) + 1, column: Int(event.end_mark.column) + 1)
        switch event.type {
        case YAML_STREAM_END_EVENT:
            return true
        case YAML_DOCUMENT_START_EVENT:
            documents += 1
            if documents > 1 {
                throw failure(
                    at: start,
                    "this file holds more than one YAML document (a new one starts here with `---`); keep one "
                        + "document per file")
            }
        case YAML_SCALAR_EVENT:
            let data = event.data.scalar
            let text = String(decoding: UnsafeBufferPointer(start: data.value, count: data.length), as: UTF8.self)
            var tag = data.tag.map { String(cString: $0) }
            if let value = tag, !YAMLScalar.supportedTags.contains(value) {
                throw failure(at: start, "the tag `\(value)` is not supported; remove it (only `!!str` is useful here)")
            }
            if tag == "!" { tag = YAMLScalar.stringTag }
            let scalar = YAMLScalar(text, style: YAMLScalar.Style(data.style), tag: tag)
            try add(YAMLNode(.scalar(scalar), start: start, end: end), count: 1, anchor: anchorName(data.anchor))
        case YAML_ALIAS_EVENT:
            let name = String(cString: event.data.alias.anchor)
            guard let anchored = anchors[name] else {
                throw failure(at: start, "the alias `*\(name)` names no anchor; define `&\(name)` before using it")
            }
            aliasNodes += anchored.count
            if aliasNodes > YAMLParser.aliasExpansionLimit {
                throw failure(
                    at: start,
                    "aliases expand to more than \(YAMLParser.aliasExpansionLimit) nodes; refusing to expand "
                        + "them (write the values out, or use fewer nested aliases)")
            }
            try add(anchored.node, count: anchored.count, anchor: nil)
        case YAML_SEQUENCE_START_EVENT:
            stack.append(
                .sequence(items: [], start: start, anchor: anchorName(event.data.sequence_start.anchor), count: 1))
        case YAML_MAPPING_START_EVENT:
            stack.append(
                .mapping(
                    entries: [], key: nil, start: start, anchor: anchorName(event.data.mapping_start.anchor), count: 1))
        case YAML_SEQUENCE_END_EVENT:
            guard case .sequence(let items, let from, let anchor, let count) = stack.popLast() else { break }
            try add(YAMLNode(.sequence(items), start: from, end: end), count: count, anchor: anchor)
        case YAML_MAPPING_END_EVENT:
            guard case .mapping(let entries, _, let from, let anchor, let count) = stack.popLast() else { break }
            let merged = try applyingMergeKeys(entries)
            try add(YAMLNode(.mapping(merged), start: from, end: end), count: count, anchor: anchor)
        default:
            break
        }
        return false
    }

    private func anchorName(_ pointer: UnsafeMutablePointer<yaml_char_t>?) -> String? {
        pointer.map { String(cString: $0) }
    }

    private mutating func add(_ node: YAMLNode, count: Int, anchor: String?) throws(SpecErrors) {
        if let anchor { anchors[anchor] = (node, count) }
        switch stack.popLast() {
        case nil:
            root = node
        case .sequence(var items, let start, let anchor, let total):
            items.append(node)
            stack.append(.sequence(items: items, start: start, anchor: anchor, count: total + count))
        case .mapping(var entries, let key?, let start, let anchor, let total):
            entries.append(YAMLMappingEntry(key: key, value: node))
            stack.append(.mapping(entries: entries, key: nil, start: start, anchor: anchor, count: total + count))
        case .mapping(let entries, nil, let start, let anchor, let total):
            stack.append(.mapping(entries: entries, key: node, start: start, anchor: anchor, count: total + count))
        }
    }

    /// Applies YAML's `<<` merge keys: the merged mappings' entries take the place of the `<<` entry, and keys
    /// written in the mapping itself win over merged ones (as do earlier merged mappings over later ones).
    private func applyingMergeKeys(_ entries: [YAMLMappingEntry]) throws(SpecErrors) -> [YAMLMappingEntry] {
        func isMergeKey(_ node: YAMLNode) -> Bool {
            guard let scalar = node.scalar else { return false }
            return scalar.text == "<<" && scalar.style == .plain && scalar.tag == nil
        }
        guard entries.contains(where: { isMergeKey($0.key) }) else { return entries }
        var taken = Set(entries.filter { !isMergeKey($0.key) }.compactMap(\.key.keyText))
        var result: [YAMLMappingEntry] = []
        for entry in entries {
            guard isMergeKey(entry.key) else {
                result.append(entry)
                continue
            }
            let sources: [YAMLNode]
            switch entry.value.content {
            case .mapping: sources = [entry.value]
            case .sequence(let items) where items.allSatisfy({ $0.mapping != nil }): sources = items
            default:
                throw failure(
                    at: entry.key.start,
                    "`<<` merges a mapping or a list of mappings (`<<: *defaults`); this value is neither")
            }
            for merged in sources.flatMap({ $0.mapping ?? [] }) {
                guard let key = merged.key.keyText, !taken.contains(key) else { continue }
                taken.insert(key)
                result.append(merged)
            }
        }
        return result
    }

    private func failure(at mark: SourceMark, _ message: String) -> SpecErrors {
        SpecErrors(SpecProblem(file: file, mark: mark, message: message, snippet: source.snippet(at: mark)))
    }
}

extension YAMLScalar.Style {
    fileprivate init(_ style: yaml_scalar_style_t) {
        switch style {
        case YAML_SINGLE_QUOTED_SCALAR_STYLE: self = .singleQuoted
        case YAML_DOUBLE_QUOTED_SCALAR_STYLE: self = .doubleQuoted
        case YAML_LITERAL_SCALAR_STYLE: self = .literal
        case YAML_FOLDED_SCALAR_STYLE: self = .folded
        default: self = .plain
        }
    }
}
