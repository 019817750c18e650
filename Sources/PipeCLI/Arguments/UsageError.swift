import PipeCore

/// A command line that cannot be run as typed: what is wrong, for which command, and where to read more.
///
/// Its ``description`` is the text for stderr, for example:
///
///     error: unknown option '--reff' for 'pipe run'; did you mean '--ref'?
///     see 'pipe run --help'
///
/// Commands raise their own argument problems (two options that exclude each other, a bad run id) as
/// `.custom` so every usage error reads the same and exits with ``exitCode`` (2).
public struct UsageError: Error, Equatable, Sendable, CustomStringConvertible {
    /// What is wrong with the command line. Option names are written as typed (`--ref`, `-r`).
    public enum Problem: Equatable, Sendable {
        /// An option no command on the path declares, with the nearest valid one if it is close enough.
        case unknownOption(String, suggestion: String?)
        /// A word that names no subcommand, with the nearest one if it is close enough.
        case unknownCommand(String, suggestion: String?)
        /// An option that takes a value came last, or was followed by another option (`followedBy`).
        case missingValue(option: String, valueName: String, followedBy: String?)
        /// A flag given a value with `=`: `--json=yes`.
        case unexpectedValue(option: String, value: String)
        /// A single-value option given twice.
        case repeatedOption(String)
        /// A `key=value` option whose value has no `=` or no key.
        case malformedKeyValue(option: String, value: String)
        /// A value of the wrong type, e.g. `--timeout soon`; `expected` describes the right one.
        case invalidValue(option: String, value: String, expected: String)
        /// A required positional argument is missing (its name, without brackets).
        case missingArgument(String)
        /// More positional values than the command takes; `accepted` is its arguments' usage (empty: none).
        case unexpectedArgument(String, accepted: String)
        /// A problem found by a command itself, already phrased.
        case custom(String)
    }

    public var problem: Problem
    /// The full command the problem belongs to, as typed: `pipe run`, `pipe hosts trust`.
    public var command: String

    public init(_ problem: Problem, command: String) {
        self.problem = problem
        self.command = command
    }

    /// Usage errors end `pipe` with exit code 2.
    public var exitCode: Int32 { PipeExitCode.usage.rawValue }

    /// One line saying what is wrong and, where it can, what to type instead.
    public var message: String {
        let command = "'\(command)'"
        switch problem {
        case .unknownOption(let option, let suggestion):
            return "unknown option '\(option)' for \(command)" + Self.didYouMean(suggestion)
        case .unknownCommand(let word, let suggestion):
            return "unknown command '\(word)' for \(command)" + Self.didYouMean(suggestion)
        case .missingValue(let option, let valueName, nil):
            return "option '\(option)' of \(command) needs a value: \(option) <\(valueName)>"
        case .missingValue(let option, let valueName, let next?):
            return "option '\(option)' of \(command) needs a value, but '\(next)' follows it; "
                + "write \(option)=<\(valueName)> for a value that starts with '-'"
        case .unexpectedValue(let option, let value):
            return "flag '\(option)' of \(command) takes no value; remove '=\(value)'"
        case .repeatedOption(let option):
            return "option '\(option)' of \(command) was given more than once; give it once"
        case .malformedKeyValue(let option, let value):
            let fix = value.contains("=") ? "\(option) <key>\(value.drop { $0 != "=" })" : "\(option) \(value)=<value>"
            return "option '\(option)' of \(command) expects key=value, got '\(value)'; write \(fix)"
        case .invalidValue(let option, let value, let expected):
            return "invalid value '\(value)' for '\(option)' of \(command): expected \(expected)"
        case .missingArgument(let name):
            return "missing argument <\(name)> for \(command)"
        case .unexpectedArgument(let value, let accepted):
            let takes = accepted.isEmpty ? "no arguments" : accepted
            return "unexpected argument '\(value)' for \(command), which takes \(takes)"
        case .custom(let message):
            return message
        }
    }

    /// The text for stderr: the message, then where to read the command's help.
    public var description: String {
        "error: \(message)\nsee '\(command) --help'"
    }

    private static func didYouMean(_ suggestion: String?) -> String {
        suggestion.map { "; did you mean '\($0)'?" } ?? ""
    }
}
