/// Answers `pipe __complete <words…>`: what may come in the last word, read from the same command tree that prints
/// `--help`. Pure: the names that live in files and the store come from a ``CompletionNames``.
///
/// The words are those after the program name, the last one being the word under the cursor (empty when the
/// cursor follows a space). Each answer is `candidate` or `candidate<TAB>description`; the line ``filesMarker``
/// asks the shell for its own file-name completion.
struct CompletionEngine {
    static let filesMarker = ":files"

    let root: CommandSpec
    let names: CompletionNames

    /// What the words before the cursor selected: the command path, the options given and the positionals.
    struct Context {
        var path: [CommandSpec]
        var optionValues: [String: String] = [:]
        var positionals: [String] = []
        var optionsEnded = false
        /// The value option whose value is the word under the cursor.
        var pendingOption: OptionSpec?
    }

    func complete(_ words: [String]) -> [String] {
        let current = words.last ?? ""
        guard let context = Self.context(of: words.dropLast(), root: root) else { return [] }
        if let option = context.pendingOption {
            return values(for: option, context: context, prefix: current == "=" ? "" : current)
        }
        if !context.optionsEnded && current.hasPrefix("--"), let equals = current.firstIndex(of: "=") {
            let typed = String(current[..<equals])
            guard let option = CommandLineTool.option(typed, visibleIn: context.path), option.kind != .flag else {
                return []
            }
            let prefix = String(current[current.index(after: equals)...])
            return values(for: option, context: context, prefix: prefix).map { typed + "=" + $0 }
        }
        if !context.optionsEnded && current.hasPrefix("-") {
            return optionCandidates(context.path).filter { $0.hasPrefix(current) }
        }
        let command = context.path.last!
        if !command.groups.isEmpty {
            var candidates = command.subcommands.map { "\($0.name)\t\(Self.oneLine($0.summary))" }
            if context.path.count == 1 { candidates.append("help\tShow help for a command.") }
            return candidates.filter { $0.hasPrefix(current) }
        }
        guard let argument = Self.argument(at: context.positionals.count, of: command) else { return [] }
        return Self.filtered(valueCandidates(named: argument.name, valueName: argument.name, context: context), current)
    }

    /// Walks the words before the cursor like the parser does; `nil` when they name no command (nothing to offer).
    static func context(of words: ArraySlice<String>, root: CommandSpec) -> Context? {
        var context = Context(path: [root])
        for word in words {
            if let pending = context.pendingOption {
                // Bash splits `--for=merge` into `--for`, `=`, `merge`.
                if word == "=" { continue }
                context.optionValues[pending.name] = word
                context.pendingOption = nil
                continue
            }
            if !context.optionsEnded && word == "--" {
                context.optionsEnded = true
            } else if !context.optionsEnded && word.hasPrefix("-") && word != "-" {
                if let equals = word.firstIndex(of: "="), word.hasPrefix("--") {
                    let name = String(word[word.index(word.startIndex, offsetBy: 2)..<equals])
                    context.optionValues[name] = String(word[word.index(after: equals)...])
                } else if let option = CommandLineTool.option(word, visibleIn: context.path), option.kind != .flag {
                    context.pendingOption = option
                }
            } else if !context.path.last!.groups.isEmpty {
                guard let next = context.path.last!.subcommand(named: word) else { return nil }
                context.path.append(next)
            } else {
                context.positionals.append(word)
            }
        }
        return context
    }

    private func optionCandidates(_ path: [CommandSpec]) -> [String] {
        var candidates: [String] = []
        var seen = Set<String>()
        for command in path.reversed() {
            for option in command.options where seen.insert(option.name).inserted {
                candidates.append("\(option.longFlag)\t\(Self.oneLine(option.help))")
            }
        }
        candidates.append("--help\tShow help.")
        if path.count == 1 { candidates.append("--version\tShow the version.") }
        return candidates
    }

    private func values(for option: OptionSpec, context: Context, prefix: String) -> [String] {
        Self.filtered(valueCandidates(named: option.name, valueName: option.valueName, context: context), prefix)
    }

    /// Values for an argument or option, chosen by what the spec calls it: `merge|release` lists its choices,
    /// `pipeline`, `layer`, `host` and `run` are names from the project, `path` and `file` are files.
    private func valueCandidates(named name: String, valueName: String, context: Context) -> [String] {
        if valueName.contains("|") { return valueName.split(separator: "|").map(String.init) }
        let project = names.project(
            explicitFolder: context.optionValues["project-dir"], hostsFile: context.optionValues["hosts-file"],
            store: context.optionValues["store"])
        switch name {
        case "pipeline": return project.pipelines()
        case "host": return project.hosts()
        case "run": return project.runIDs()
        case "shell": return CompletionScripts.Shell.allCases.map(\.rawValue)
        case "schema-kind": return SchemaCommand.kinds
        case "layer", "only":
            // The layers of the pipeline or the run the command names first (`run p --only`, `signoff <run> <layer>`).
            guard let first = context.positionals.first else { return [] }
            switch context.path.last?.arguments.first?.name {
            case "pipeline": return project.layers(ofPipeline: first)
            case "run": return project.layers(ofRun: first)
            default: return []
            }
        default: break
        }
        switch valueName {
        case "path", "file", "out", "path-or-url": return [Self.filesMarker]
        default: return []
        }
    }

    private static func filtered(_ candidates: [String], _ prefix: String) -> [String] {
        candidates.filter { $0 == filesMarker || $0.hasPrefix(prefix) }
    }

    private static func argument(at index: Int, of command: CommandSpec) -> ArgumentSpec? {
        for (position, argument) in command.arguments.enumerated() {
            if argument.kind == .variadic || position == index { return argument }
        }
        return nil
    }

    /// A help text as a short description: its first sentence, on one line.
    private static func oneLine(_ text: String) -> String {
        let flat = text.split(whereSeparator: \.isNewline).joined(separator: " ")
        if let stop = flat.range(of: ". ") { return String(flat[..<stop.lowerBound]) + "." }
        return flat
    }
}
