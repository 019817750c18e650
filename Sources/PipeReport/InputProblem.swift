/// Input that `pipe report` could not read in full: which input, where reading stopped, and what was still used.
public struct InputProblem: Equatable, Sendable, CustomStringConvertible {
    /// The file as given (`-` or `stdin` for standard input).
    public var source: String
    /// `line 12 (byte 3456)`, `line 40, column 7 (byte 1234)`, or nil when the whole input was refused.
    public var position: String?
    public var message: String
    /// What was used anyway: `the 312 lines before it are reported`, `nothing from this file is used`.
    public var consequence: String

    public init(source: String, position: String?, message: String, consequence: String) {
        self.source = source
        self.position = position
        self.message = message
        self.consequence = consequence
    }

    public var description: String {
        "\(source)" + (position.map { ": stopped reading at \($0)" } ?? "") + ": \(message); \(consequence)"
    }
}
