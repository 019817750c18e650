/// The values of one parsed command line, read by name with typed accessors.
///
/// Asking for a name the command does not declare, or with the wrong accessor (`flag` for a value option), is a
/// programming error and stops the program with a message naming the command and the option.
public struct ParsedArguments: Equatable, Sendable {
    /// The full command, as typed: `pipe run`. Use it to raise a ``UsageError`` of your own.
    public let command: String
    /// Every positional value in order, including those after `--`.
    public let positionals: [String]
    /// The options this command accepts (its own and its ancestors'), by long name.
    let options: [String: OptionSpec]
    /// The values given on the command line by long name, in order; a given flag has an empty list.
    let values: [String: [String]]
    /// Positional values by argument name.
    let arguments: [String: [String]]

    /// Whether a flag was given.
    public func flag(_ name: String) -> Bool {
        _ = option(name, of: [.flag])
        return values[name] != nil
    }

    /// The value of a single-value option, its default when it was not given, or `nil`.
    public func string(_ name: String) -> String? {
        let spec = option(name, of: [.value])
        return values[name]?.last ?? spec.defaultValue
    }

    /// Every value given to an option, in command-line order (empty when not given).
    public func strings(_ name: String) -> [String] {
        _ = option(name, of: [.value, .repeated, .keyValue])
        return values[name] ?? []
    }

    /// The pairs given to a `.keyValue` option, in command-line order; a key given twice appears twice.
    public func keyValues(_ name: String) -> [KeyValue] {
        _ = option(name, of: [.keyValue])
        // The parser refused values without `=`, so every value splits.
        return (values[name] ?? []).compactMap(KeyValue.init(splitting:))
    }

    /// The value of a single-value option as a whole number, or `nil` when neither given nor defaulted.
    public func int(_ name: String) throws -> Int? {
        guard let text = string(name) else { return nil }
        guard let number = Int(text) else {
            throw UsageError(
                .invalidValue(option: "--" + name, value: text, expected: "a whole number"), command: command)
        }
        return number
    }

    /// Whether an option was typed on the command line (a default does not count).
    public func isGiven(_ name: String) -> Bool {
        _ = option(name, of: [.flag, .value, .repeated, .keyValue])
        return values[name] != nil
    }

    /// The positional value at `index` (0-based), or `nil`.
    public func positional(_ index: Int) -> String? {
        positionals.indices.contains(index) ? positionals[index] : nil
    }

    /// The value of a required or optional argument by name, or `nil` when an optional one was left out.
    public func argument(_ name: String) -> String? {
        guard let values = arguments[name] else {
            preconditionFailure("'\(command)' declares no argument <\(name)>")
        }
        return values.first
    }

    /// Every value of a variadic argument, in order.
    public func variadic(_ name: String) -> [String] {
        guard let values = arguments[name] else {
            preconditionFailure("'\(command)' declares no argument <\(name)>")
        }
        return values
    }

    private func option(_ name: String, of kinds: [OptionSpec.Kind]) -> OptionSpec {
        guard let spec = options[name] else { preconditionFailure("'\(command)' declares no option '--\(name)'") }
        precondition(kinds.contains(spec.kind), "option '--\(name)' of '\(command)' is \(spec.kind), not \(kinds)")
        return spec
    }
}
