/// One positional argument of a command, such as the `<pipeline>` of `pipe run <pipeline>`.
///
/// A command lists its required arguments first, then optional ones, then at most one variadic argument
/// (``CommandSpec/definitionProblems`` reports any other order).
public struct ArgumentSpec: Equatable, Sendable {
    /// How many values an argument takes.
    public enum Kind: Equatable, Sendable {
        /// Exactly one value; missing it is a usage error.
        case required
        /// Zero or one value.
        case optional
        /// Every remaining value, possibly none.
        case variadic
    }

    /// The name used by ``ParsedArguments/argument(_:)`` and shown in help as `<name>`.
    public var name: String
    public var kind: Kind
    /// One sentence or two for the help screen.
    public var help: String

    public init(_ name: String, kind: Kind, help: String) {
        self.name = name
        self.kind = kind
        self.help = help
    }

    /// An argument that must be given: `<pipeline>`.
    public static func required(_ name: String, help: String) -> ArgumentSpec {
        ArgumentSpec(name, kind: .required, help: help)
    }

    /// An argument that may be left out: `[<run>]`.
    public static func optional(_ name: String, help: String) -> ArgumentSpec {
        ArgumentSpec(name, kind: .optional, help: help)
    }

    /// All remaining values: `[<file>...]`.
    public static func variadic(_ name: String, help: String) -> ArgumentSpec {
        ArgumentSpec(name, kind: .variadic, help: help)
    }

    /// How the argument appears in a usage line.
    var usage: String {
        switch kind {
        case .required: return "<\(name)>"
        case .optional: return "[<\(name)>]"
        case .variadic: return "[<\(name)>...]"
        }
    }
}
