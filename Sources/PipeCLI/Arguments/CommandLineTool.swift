import PipeBasics

/// Parses a command line against a ``CommandSpec`` tree into a ``ParseOutcome``, without printing or exiting.
///
/// Rules, in the order they apply to each word:
/// - `--` ends options: every later word is positional.
/// - `-h`/`--help` anywhere before `--` asks for the help of the command named so far; it also wins over a usage
///   error in the words before it, because someone who typed it wants to read, not be scolded.
///   `pipe help <command>…` shows the same text; `--version` right after the program name shows the version.
/// - `--name value`, `--name=value` and `-n value` give a value; a next word starting with `-` is not taken as
///   a value (write `--name=-x` for that), except `-` alone, which conventionally means stdin.
/// - Short options stand alone: `-r main`, never `-rmain`, `-r=main` or clusters like `-vy`.
/// - Options of a command are also accepted after its subcommands, so root options are global.
/// - While the current command has subcommands, a positional word selects one; a command with subcommands given
///   none shows its help.
public struct CommandLineTool: Sendable {
    public let root: CommandSpec
    public let version: String
    /// What `--version --json` prints; `nil`: the same as `--version`.
    public let versionJSON: String?

    /// - Precondition: `root` has no ``CommandSpec/definitionProblems``.
    public init(root: CommandSpec, version: String, versionJSON: String? = nil) {
        let problems = root.definitionProblems
        precondition(problems.isEmpty, "invalid command definitions:\n" + problems.joined(separator: "\n"))
        self.root = root
        self.version = version
        self.versionJSON = versionJSON
    }

    /// Parses the words after the program name (`CommandLine.arguments.dropFirst()`).
    public func parse<Words: Collection>(_ words: Words) -> ParseOutcome where Words.Element == String {
        let words = Array(words)
        var path = [root]
        var values: [String: [String]] = [:]
        var positionals: [String] = []
        var index = 0
        var optionsEnded = false

        func fail(_ problem: UsageError.Problem) -> ParseOutcome {
            let rest = words[index...].prefix { $0 != "--" }
            if !optionsEnded && rest.contains(where: Self.isHelpFlag) { return .help(help(for: path)) }
            return .error(UsageError(problem, command: Self.displayName(path)))
        }

        while index < words.count {
            let word = words[index]
            index += 1
            if optionsEnded || !Self.looksLikeOption(word) {
                if path.last!.groups.isEmpty {
                    positionals.append(word)
                } else if path.count == 1 && word == "help" {
                    return helpCommand(Array(words[index...]))
                } else if let subcommand = path.last!.subcommand(named: word) {
                    path.append(subcommand)
                } else {
                    return fail(.unknownCommand(word, suggestion: nearestCommand(to: word, in: path)))
                }
                continue
            }
            if word == "--" {
                optionsEnded = true
                continue
            }
            if Self.isHelpFlag(word) { return .help(help(for: path)) }
            if word == "--version" && path.count == 1 {
                return .version(words[index...].first == "--json" ? versionJSON ?? version : version)
            }

            // `--name=value` carries its value; a short option never does (`-r=x` is simply unknown).
            let (typed, attached) = Self.splitAttachedValue(word)
            if let attached, Self.isHelpFlag(typed) || (typed == "--version" && path.count == 1) {
                return fail(.unexpectedValue(option: typed, value: attached))
            }
            guard let option = Self.option(typed, visibleIn: path) else {
                return fail(.unknownOption(typed, suggestion: nearestOption(to: typed, in: path)))
            }
            let name = option.longFlag
            if option.kind == .flag {
                if let attached { return fail(.unexpectedValue(option: name, value: attached)) }
                values[option.name] = []
                continue
            }
            let value: String
            if let attached {
                value = attached
            } else if index < words.count && !Self.looksLikeOption(words[index]) {
                value = words[index]
                index += 1
            } else {
                let next = index < words.count ? words[index] : nil
                return fail(.missingValue(option: name, valueName: option.valueName, followedBy: next))
            }
            if option.kind == .value && values[option.name] != nil { return fail(.repeatedOption(name)) }
            if option.kind == .keyValue && KeyValue(splitting: value) == nil {
                return fail(.malformedKeyValue(option: name, value: value))
            }
            values[option.name, default: []].append(value)
        }

        let command = path.last!
        if !command.groups.isEmpty { return .help(help(for: path)) }

        var arguments: [String: [String]] = [:]
        var remaining = positionals[...]
        for argument in command.arguments {
            switch argument.kind {
            case .required:
                guard let value = remaining.popFirst() else { return fail(.missingArgument(argument.name)) }
                arguments[argument.name] = [value]
            case .optional:
                arguments[argument.name] = remaining.popFirst().map { [$0] } ?? []
            case .variadic:
                arguments[argument.name] = Array(remaining)
                remaining = []
            }
        }
        if let extra = remaining.first {
            let accepted = command.arguments.map(\.usage).joined(separator: " ")
            return fail(.unexpectedArgument(extra, accepted: accepted))
        }

        var visible: [String: OptionSpec] = [:]
        for spec in path {
            for option in spec.options { visible[option.name] = option }
        }
        let parsed = ParsedArguments(
            command: Self.displayName(path), positionals: positionals, options: visible, values: values,
            arguments: arguments)
        return .run(path: path.dropFirst().map(\.name), arguments: parsed)
    }

    /// The help text of the command at `path` (subcommand names below the root), or `nil` if there is none.
    public func helpText(for path: [String]) -> String? {
        var commands = [root]
        for name in path {
            guard let next = commands.last!.subcommand(named: name) else { return nil }
            commands.append(next)
        }
        return help(for: commands)
    }

    /// `pipe help [<command>...]`: the help of the named command; option-like words are ignored.
    private func helpCommand(_ words: [String]) -> ParseOutcome {
        var path = [root]
        for word in words where !Self.looksLikeOption(word) {
            guard let next = path.last!.subcommand(named: word) else {
                let suggestion = nearestCommand(to: word, in: path)
                return .error(
                    UsageError(.unknownCommand(word, suggestion: suggestion), command: Self.displayName(path)))
            }
            path.append(next)
        }
        return .help(help(for: path))
    }

    private func help(for path: [CommandSpec]) -> String {
        HelpFormatter(path: path).render()
    }

    private func nearestCommand(to word: String, in path: [CommandSpec]) -> String? {
        let names = path.last!.subcommands.map(\.name) + (path.count == 1 ? ["help"] : [])
        return EditDistance.nearest(to: word, in: names)
    }

    private func nearestOption(to word: String, in path: [CommandSpec]) -> String? {
        // Only long names: every one-letter alias is within the allowance of any other.
        var names = path.flatMap { $0.options.map(\.longFlag) } + ["--help"]
        if path.count == 1 { names.append("--version") }
        return EditDistance.nearest(to: word, in: names)
    }

    /// The declared option a typed `--name` or `-n` means, looking from the innermost command outwards.
    static func option(_ typed: String, visibleIn path: [CommandSpec]) -> OptionSpec? {
        for command in path.reversed() {
            for option in command.options {
                if typed == option.longFlag { return option }
                if let short = option.short, typed == "-\(short)" { return option }
            }
        }
        return nil
    }

    private static func splitAttachedValue(_ word: String) -> (String, String?) {
        guard word.hasPrefix("--"), let equals = word.firstIndex(of: "=") else { return (word, nil) }
        return (String(word[..<equals]), String(word[word.index(after: equals)...]))
    }

    private static func looksLikeOption(_ word: String) -> Bool {
        word.hasPrefix("-") && word != "-"
    }

    private static func isHelpFlag(_ word: String) -> Bool {
        word == "--help" || word == "-h"
    }

    static func displayName(_ path: [CommandSpec]) -> String {
        path.map(\.name).joined(separator: " ")
    }
}
