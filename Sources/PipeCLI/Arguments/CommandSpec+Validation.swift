extension CommandSpec {
    /// Mistakes in this command tree that would make parsing ambiguous, one line each naming the command;
    /// empty when the tree is sound. Assert it in a unit test of the real tree.
    public var definitionProblems: [String] {
        problems(ancestors: [], taken: ["--help": "the built-in --help", "-h": "the built-in --help"])
    }

    /// - Parameter taken: who already declares each `--name` and `-n` visible here.
    private func problems(ancestors: [String], taken inherited: [String: String]) -> [String] {
        let command = (ancestors + [name]).joined(separator: " ")
        var problems: [String] = []
        func report(_ problem: String) { problems.append("'\(command)': \(problem)") }

        var taken = inherited
        if ancestors.isEmpty { taken["--version"] = "the built-in --version" }
        for option in options {
            if option.name.isEmpty || option.name.hasPrefix("-") || option.name.contains(where: { "= ".contains($0) }) {
                report("option name '\(option.name)' must be a word without leading dashes, '=' or spaces")
            }
            for flag in [option.longFlag] + (option.short.map { ["-\($0)"] } ?? []) {
                if let owner = taken[flag] {
                    report("option '\(flag)' is already declared by \(owner)")
                } else {
                    taken[flag] = "'\(command)'"
                }
            }
            if option.defaultValue != nil && option.kind != .value {
                report("option '--\(option.name)' has a default, which only a single-value option can use")
            }
        }

        if !groups.isEmpty && !arguments.isEmpty {
            report("a command with subcommands cannot take positional arguments")
        }
        var argumentNames: Set<String> = []
        var seenOptional = false
        var seenVariadic = false
        for argument in arguments {
            if !argumentNames.insert(argument.name).inserted { report("argument <\(argument.name)> is declared twice") }
            if seenVariadic {
                report("argument <\(argument.name)> follows a variadic one, which takes every remaining value")
            } else if seenOptional && argument.kind == .required {
                report("required argument <\(argument.name)> follows an optional one; list required ones first")
            }
            seenOptional = seenOptional || argument.kind == .optional
            seenVariadic = seenVariadic || argument.kind == .variadic
        }

        var commandNames: Set<String> = []
        for subcommand in subcommands {
            if subcommand.name.isEmpty || subcommand.name.hasPrefix("-") || subcommand.name.contains(" ") {
                report("subcommand name '\(subcommand.name)' must be a word that does not start with '-'")
            }
            if ancestors.isEmpty && subcommand.name == "help" {
                report("subcommand 'help' clashes with the built-in '\(name) help'")
            } else if !commandNames.insert(subcommand.name).inserted {
                report("subcommand '\(subcommand.name)' is declared twice")
            }
            // Only options go down: a subcommand may reuse a name its parent gave an argument.
            problems += subcommand.problems(ancestors: ancestors + [name], taken: taken)
        }
        return problems
    }
}
