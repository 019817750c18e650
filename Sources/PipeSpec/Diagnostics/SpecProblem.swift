/// One thing wrong (or worth a warning) in a pipeline or hosts file: where, which key, what and what to do.
public struct SpecProblem: Sendable, Equatable, CustomStringConvertible {
    public enum Severity: String, Sendable {
        case error
        case warning
    }

    public var severity: Severity
    /// The file as the user named it, e.g. `pipelines/app-intents.yml`.
    public var file: String
    /// Where in the file; `nil` for problems of the invocation itself (an unknown `--param`, an unreadable file).
    public var mark: SourceMark?
    /// The offending key's path (`layers.logic.timout`); empty for the document as a whole.
    public var keyPath: String
    /// What is wrong and what to do about it.
    public var message: String
    /// For YAML syntax errors: the source line followed by a line with a caret under the column.
    public var snippet: [String]

    public init(
        severity: Severity = .error, file: String, mark: SourceMark?, keyPath: String = "", message: String,
        snippet: [String] = []
    ) {
        self.severity = severity
        self.file = file
        self.mark = mark
        self.keyPath = keyPath
        self.message = message
        self.snippet = snippet
    }

    /// `pipelines/app-intents.yml:12:5: error: layers.logic.timout: unknown key; did you mean 'timeout'?`, with
    /// the snippet lines after it for syntax errors.
    public var description: String {
        var line = file
        if let mark { line += ":\(mark.line):\(mark.column)" }
        line += ": \(severity.rawValue): "
        if !keyPath.isEmpty { line += "\(keyPath): " }
        line += message
        return ([line] + snippet).joined(separator: "\n")
    }

    /// Orders problems by file, then position; problems without a position (about the invocation) come first.
    static func inReadingOrder(_ lhs: SpecProblem, _ rhs: SpecProblem) -> Bool {
        if lhs.file != rhs.file { return lhs.file < rhs.file }
        switch (lhs.mark, rhs.mark) {
        case (nil, nil): return false
        case (nil, _): return true
        case (_, nil): return false
        case (let left?, let right?): return left < right
        }
    }
}
