/// Renders a whole command tree as one man page (roff, `man 7 man` macros): the program's synopsis, description and
/// options, then every command with its arguments and options, then the root's extra sections. It reads the same
/// specs as `--help`, so the page and the help never disagree.
struct ManPageFormatter {
    let root: CommandSpec
    /// The text of the page's footer: `pipe 0.1.0`.
    let version: String
    /// Whether `--version --json` exists.
    let versionHasJSON: Bool

    func render() -> String {
        var out: [String] = []
        out.append(".TH \(Self.quoted(root.name.uppercased())) 1 \"\" \(Self.quoted(version)) \"User Commands\"")
        // Option names and paths must stay whole to be searched for: no hyphenation, ragged right.
        out += [".nh", ".ad l"]
        out.append(".SH NAME")
        out.append(Self.escaped("\(root.name) - \(root.summary)"))
        out.append(".SH SYNOPSIS")
        out.append(".B \(Self.escaped(root.name))")
        out.append(Self.escaped("[<options>] <command> [<arguments>]"))
        if !root.discussion.isEmpty {
            out.append(".SH DESCRIPTION")
            out += Self.paragraphs(root.discussion)
        }
        out.append(".SH OPTIONS")
        out += root.options.flatMap(Self.option)
        out += [".TP", "\\fB\\-h\\fR, \\fB\\-\\-help\\fR", "Show help for the program or a command."]
        out += [
            ".TP", "\\fB\\-\\-version\\fR",
            Self.escaped("Show the version." + (versionHasJSON ? " With --json, as JSON." : "")),
        ]
        out.append(".SH COMMANDS")
        for group in root.groups {
            for command in group.commands { out += commandEntries(command, path: [root]) }
        }
        for section in root.sections {
            out.append(".SH \(Self.quoted(section.title))")
            switch section.content {
            case .text(let text): out += Self.paragraphs(text)
            case .rows(let rows):
                out += rows.flatMap { [".TP", "\\fB\(Self.escaped($0.label))\\fR", Self.escaped($0.text)] }
            }
        }
        return out.joined(separator: "\n") + "\n"
    }

    /// A command's subsection, then its subcommands' (depth first).
    private func commandEntries(_ command: CommandSpec, path: [CommandSpec]) -> [String] {
        let full = path + [command]
        let name = CommandLineTool.displayName(full)
        var usage = name
        if command.groups.isEmpty {
            usage +=
                (command.options.isEmpty ? "" : " [<options>]")
                + command.arguments.map { " " + $0.usage }.joined()
        } else {
            usage += " <command>"
        }
        var out = [".SS \(Self.quoted(usage))"]
        out.append(Self.escaped(command.summary))
        if !command.discussion.isEmpty { out += Self.paragraphs(command.discussion) }
        for argument in command.arguments {
            out += [".TP", "\\fI\(Self.escaped("<\(argument.name)>"))\\fR", Self.escaped(argument.help)]
        }
        out += command.options.flatMap(Self.option)
        for section in command.sections {
            out += [".PP", "\\fB\(Self.escaped(section.title))\\fR"]
            switch section.content {
            case .text(let text): out += Self.paragraphs(text)
            case .rows(let rows):
                out += rows.flatMap { [".TP", "\\fB\(Self.escaped($0.label))\\fR", Self.escaped($0.text)] }
            }
        }
        for sub in command.subcommands { out += commandEntries(sub, path: full) }
        return out
    }

    private static func option(_ option: OptionSpec) -> [String] {
        var label = option.short.map { "\\fB\\-\(escaped(String($0)))\\fR, " } ?? ""
        label += "\\fB\(escaped(option.longFlag))\\fR"
        if option.kind != .flag { label += " \\fI\(escaped("<\(option.valueName)>"))\\fR" }
        var text = option.help
        if let value = option.defaultValue { text += " (default: \(value))" }
        if option.kind == .repeated || option.kind == .keyValue { text += " (repeatable)" }
        return [".TP", label, escaped(text)]
    }

    /// Prose as `.PP` paragraphs; lines that start with a space (examples) kept as they are, in `.nf`.
    private static func paragraphs(_ text: String) -> [String] {
        var out: [String] = []
        var paragraph: [Substring] = []
        var literal: [Substring] = []
        func flush() {
            if !paragraph.isEmpty { out += [".PP", escaped(paragraph.joined(separator: " "))] }
            paragraph = []
            if !literal.isEmpty { out += [".PP", ".nf"] + literal.map { escaped(String($0)) } + [".fi"] }
            literal = []
        }
        for line in text.split(separator: "\n", omittingEmptySubsequences: false) {
            if line.allSatisfy(\.isWhitespace) {
                flush()
            } else if line.first == " " {
                if !paragraph.isEmpty { flush() }
                literal.append(line)
            } else {
                if !literal.isEmpty { flush() }
                paragraph.append(line)
            }
        }
        flush()
        return out
    }

    /// Text that roff shows as written: backslashes and hyphens escaped, a leading `.` or `'` made inert.
    static func escaped(_ text: String) -> String {
        var result = text.replacingOccurrences(of: "\\", with: "\\e").replacingOccurrences(of: "-", with: "\\-")
        if result.first == "." || result.first == "'" { result = "\\&" + result }
        return result
    }

    private static func quoted(_ text: String) -> String {
        "\"" + escaped(text).replacingOccurrences(of: "\"", with: "\\(dq") + "\""
    }
}
