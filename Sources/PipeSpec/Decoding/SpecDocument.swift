import Foundation

/// Reads another YAML file of Pipe's (the controller's config) with the rules and messages of pipeline and hosts
/// files: every problem collected with `file:line:column` and key path, unknown keys with the nearest valid one,
/// values of the wrong type as "expected X, found Y", duplicate keys reported.
///
/// The public face of PipeSpec's internal readers, for modules that decode their own formats: read the file,
/// walk it with `mapping` and the typed readers, add problems of your own with `error`, then `finish()` throws
/// every error at once. Not interpolated.
public final class SpecDocument {
    /// The file as the user named it.
    public var file: String { problems.file }
    /// The document's root; `nil` for an empty file.
    public let root: YAMLNode?
    let problems: ProblemCollector
    let reader: SpecReader

    /// Reads and parses a file; a syntax error (or an unreadable file) is thrown at once, as `SpecErrors`.
    public static func read(_ url: URL) throws(SpecErrors) -> SpecDocument {
        let file = try SpecFile.read(url)
        return try SpecDocument(file)
    }

    /// Parses YAML text; `file` names it in messages.
    public convenience init(yaml: String, file: String) throws(SpecErrors) {
        try self.init(SpecFile(displayPath: file, text: yaml))
    }

    private init(_ file: SpecFile) throws(SpecErrors) {
        root = try file.parse()
        problems = ProblemCollector(file: file.displayPath, source: file.source)
        reader = SpecReader(problems: problems, interpolator: nil)
        if let root { problems.reportDuplicateKeys(in: root) }
    }

    // MARK: Problems

    /// Adds an error at a node (or the file as a whole with `mark` `nil`).
    public func error(_ path: SpecKeyPath, at mark: SourceMark?, _ message: String) {
        problems.error(path, at: mark, message)
    }

    public func warning(_ path: SpecKeyPath, at mark: SourceMark?, _ message: String) {
        problems.warning(path, at: mark, message)
    }

    public var hasErrors: Bool { problems.hasErrors }

    /// Every problem so far, warnings included, in reading order.
    public var allProblems: [SpecProblem] { SpecErrors(problems.problems).problems }

    /// Throws every error found, all at once; returns the warnings when there is none.
    @discardableResult
    public func finish() throws(SpecErrors) -> [SpecProblem] {
        let errors = problems.problems.filter { $0.severity == .error }
        guard errors.isEmpty else { throw SpecErrors(errors) }
        return problems.problems
    }

    // MARK: Reading values

    /// A mapping, or `nil` (reported as "expected …") when the node is something else.
    public func mapping(_ node: YAMLNode, at path: SpecKeyPath, expected: String = "a mapping") -> SpecMapping? {
        reader.mapping(node, at: path, expected: expected).map(SpecMapping.init)
    }

    public func string(_ node: YAMLNode, at path: SpecKeyPath) -> String? { reader.string(node, at: path) }

    public func nonEmptyString(_ node: YAMLNode, at path: SpecKeyPath) -> String? {
        reader.nonEmptyString(node, at: path)
    }

    public func integer(_ node: YAMLNode, at path: SpecKeyPath) -> Int? { reader.integer(node, at: path) }

    public func boolean(_ node: YAMLNode, at path: SpecKeyPath) -> Bool? { reader.boolean(node, at: path) }

    /// Seconds, from `90s`, `10m`, `1h30m` or a plain number.
    public func duration(_ node: YAMLNode, at path: SpecKeyPath) -> Double? { reader.duration(node, at: path) }

    /// One of a fixed set of words, with the nearest one suggested.
    public func choice<Value: RawRepresentable>(_ node: YAMLNode, at path: SpecKeyPath, among cases: [Value])
        -> Value? where Value.RawValue == String
    {
        reader.choice(node, at: path, among: cases)
    }

    /// A list of text values (a single value may be written without brackets), each with its node and path.
    public func strings(_ node: YAMLNode, at path: SpecKeyPath) -> [(text: String, node: YAMLNode, path: SpecKeyPath)]?
    {
        reader.strings(node, at: path)
    }

    /// A mapping of text to text.
    public func stringMap(_ node: YAMLNode, at path: SpecKeyPath) -> [String: String]? {
        reader.stringMap(node, at: path)
    }

    /// Reports "expected X, found Y" for a node.
    public func mismatch(_ node: YAMLNode, at path: SpecKeyPath, expected: String, hint: String? = nil) {
        reader.mismatch(node, at: path, expected: expected, hint: hint)
    }

    /// `; did you mean 'timeout'?` or nothing.
    public static func suggestion(_ word: String, among candidates: [String]) -> String {
        SpecReader.suggestion(word, candidates)
    }
}

/// One mapping of a `SpecDocument`: its keys (first occurrence of each, in file order) and what they hold.
public struct SpecMapping {
    let base: MappingReader

    init(_ base: MappingReader) { self.base = base }

    /// The mapping node itself.
    public var node: YAMLNode { base.node }
    public var path: SpecKeyPath { base.path }

    /// Each key with its key node and value, in file order.
    public var entries: [(key: String, keyNode: YAMLNode, value: YAMLNode)] {
        base.entries.map { ($0.key, $0.keyNode, $0.value) }
    }

    /// The value of `key`; `nil` when absent or empty (`key:` or `~`).
    public func value(_ key: String) -> YAMLNode? { base.value(key) }

    public func contains(_ key: String) -> Bool { base.contains(key) }

    /// The value of a key that must be there (a missing or empty one is reported).
    public func required(_ key: String, hint: String = "") -> YAMLNode? { base.required(key, hint: hint) }

    /// Reports every key not in `allowed`, with the nearest allowed one.
    public func rejectUnknownKeys(allowed: [String]) { base.rejectUnknownKeys(allowed: allowed) }
}
