/// One named option of a command: a flag (`--json`), an option with a value (`--ref main`), or a repeatable one
/// (`--param k=v --param k2=v2`).
///
/// Options are looked up by their long `name` (without dashes) in ``ParsedArguments``. An option declared on a
/// command is also accepted after any of its subcommands, so options of the root command are global options.
public struct OptionSpec: Equatable, Sendable {
    /// What an option takes and how often it may be given.
    public enum Kind: Equatable, Sendable {
        /// A switch without a value: `--json`. Giving it twice is harmless.
        case flag
        /// One value: `--ref main` or `--ref=main`. Giving it twice is a usage error, because which one wins
        /// would be a guess.
        case value
        /// A value each time it is given, all kept in command-line order: `--only A --only B`.
        case repeated
        /// Like `repeated`, but every value must be `key=value`; checked while parsing, so `--param foo` fails
        /// before anything runs.
        case keyValue
    }

    /// The long name without dashes: `ref` for `--ref`.
    public var name: String
    /// A one-letter alias: `h` for `-h`.
    public var short: Character?
    public var kind: Kind
    /// The placeholder shown in help, without angle brackets: `ref` renders as `--ref <ref>`.
    public var valueName: String
    /// The value ``ParsedArguments/string(_:)`` returns when a `.value` option is not given; shown in help.
    public var defaultValue: String?
    /// One sentence or two for the help screen.
    public var help: String

    public init(
        _ name: String, short: Character? = nil, kind: Kind, valueName: String? = nil, defaultValue: String? = nil,
        help: String
    ) {
        self.name = name
        self.short = short
        self.kind = kind
        self.valueName = valueName ?? (kind == .keyValue ? "key=value" : name)
        self.defaultValue = defaultValue
        self.help = help
    }

    /// A switch without a value: `--json`.
    public static func flag(_ name: String, short: Character? = nil, help: String) -> OptionSpec {
        OptionSpec(name, short: short, kind: .flag, help: help)
    }

    /// An option taking one value: `--ref <ref>`, with an optional default shown in help.
    public static func value(
        _ name: String, short: Character? = nil, valueName: String? = nil, default defaultValue: String? = nil,
        help: String
    ) -> OptionSpec {
        OptionSpec(name, short: short, kind: .value, valueName: valueName, defaultValue: defaultValue, help: help)
    }

    /// An option that may be given many times, values kept in order: `--only <test>`.
    public static func repeated(
        _ name: String, short: Character? = nil, valueName: String? = nil, help: String
    ) -> OptionSpec {
        OptionSpec(name, short: short, kind: .repeated, valueName: valueName, help: help)
    }

    /// A repeatable `key=value` option: `--param <key=value>`.
    public static func keyValue(
        _ name: String, short: Character? = nil, valueName: String? = nil, help: String
    ) -> OptionSpec {
        OptionSpec(name, short: short, kind: .keyValue, valueName: valueName, help: help)
    }

    /// `--name`, as users type it and as messages show it.
    public var longFlag: String { "--" + name }
}
