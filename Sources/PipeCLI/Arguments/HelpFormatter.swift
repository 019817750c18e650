/// Renders the help screen of one command: usage, summary, discussion, arguments, commands, options, extra
/// sections; wrapped at ``width`` columns, with every description column aligned, and nothing that depends on
/// the terminal, so golden files can pin it.
struct HelpFormatter {
    /// The widest line help produces, so it reads the same in a terminal, a CI log and a README.
    static let width = 100
    /// Labels longer than this put their description on the next line, rather than pushing every column right.
    static let maximumLabelWidth = 30

    /// The command whose help this is, preceded by its ancestors (the root first).
    let path: [CommandSpec]

    private var command: CommandSpec { path.last! }
    private var isRoot: Bool { path.count == 1 }
    private var name: String { CommandLineTool.displayName(path) }

    func render() -> String {
        var blocks: [[String]] = [["USAGE: " + usage]]
        if !command.summary.isEmpty { blocks.append(Self.reflow(command.summary, indent: 0)) }
        if !command.discussion.isEmpty { blocks.append(Self.reflow(command.discussion, indent: 0)) }

        var tables: [(title: String, rows: [HelpSection.Row])] = []
        if !command.arguments.isEmpty {
            tables.append(("ARGUMENTS", command.arguments.map { HelpSection.Row("<\($0.name)>", $0.help) }))
        }
        for group in command.groups {
            tables.append((group.title, group.commands.map { HelpSection.Row($0.name, $0.summary) }))
        }
        var ownOptions = command.options.map(Self.row)
        ownOptions.append(HelpSection.Row("-h, --help", "Show help for this command."))
        if isRoot { ownOptions.append(HelpSection.Row("    --version", "Show the version.")) }
        tables.append((isRoot && !command.groups.isEmpty ? "GLOBAL OPTIONS" : "OPTIONS", ownOptions))
        let inherited = path.dropLast().flatMap(\.options).map(Self.row)
        if !inherited.isEmpty { tables.append(("GLOBAL OPTIONS", inherited)) }

        // One description column for the whole screen, so tables line up with each other.
        let sectionRows = command.sections.flatMap { section -> [HelpSection.Row] in
            if case .rows(let rows) = section.content { return rows }
            return []
        }
        let longest = (tables.flatMap(\.rows) + sectionRows).map(\.label.count).max() ?? 0
        let labelWidth = min(longest, Self.maximumLabelWidth)
        let table = { (title: String, rows: [HelpSection.Row]) in
            ["\(title):"] + rows.flatMap { Self.lines(for: $0, labelWidth: labelWidth) }
        }
        blocks += tables.map(table)
        for section in command.sections {
            switch section.content {
            case .text(let text): blocks.append(["\(section.title):"] + Self.reflow(text, indent: 2))
            case .rows(let rows): blocks.append(table(section.title, rows))
            }
        }
        if !command.groups.isEmpty {
            let helpPath = (["help"] + path.dropFirst().map(\.name)).joined(separator: " ")
            blocks.append(["See '\(path[0].name) \(helpPath) <command>' for more about a command."])
        }
        return blocks.map { $0.joined(separator: "\n") }.joined(separator: "\n\n")
    }

    private var usage: String {
        if !command.groups.isEmpty { return "\(name) [<options>] <command>" }
        return ([name, "[<options>]"] + command.arguments.map(\.usage)).joined(separator: " ")
    }

    private static func row(_ option: OptionSpec) -> HelpSection.Row {
        var label = option.short.map { "-\($0), " } ?? "    "
        label += option.longFlag
        if option.kind != .flag { label += " <\(option.valueName)>" }
        var text = option.help
        if let value = option.defaultValue { text += " (default: \(value))" }
        if option.kind == .repeated || option.kind == .keyValue { text += " (repeatable)" }
        return HelpSection.Row(label, text)
    }

    /// A label and its description, the description wrapped in its own column.
    private static func lines(for row: HelpSection.Row, labelWidth: Int) -> [String] {
        let column = 2 + labelWidth + 2
        let text = wrap(row.text, width: width - column).map { String(repeating: " ", count: column) + $0 }
        let label = "  " + row.label
        guard let first = text.first, row.label.count <= labelWidth else { return [label] + text }
        let padding = String(repeating: " ", count: column - label.count)
        return [label + padding + first.drop { $0 == " " }] + text.dropFirst()
    }

    /// Rewraps prose to the help width; a line that starts with a space is kept as it is (examples, tables).
    /// Blank lines separate paragraphs: none at either end, never two in a row.
    static func reflow(_ text: String, indent: Int) -> [String] {
        let margin = String(repeating: " ", count: indent)
        var result: [String] = []
        var paragraph: [Substring] = []
        var blankPending = false
        func emit(_ lines: [String]) {
            guard !lines.isEmpty else { return }
            if blankPending && !result.isEmpty { result.append("") }
            blankPending = false
            result += lines
        }
        func flush() {
            emit(wrap(paragraph.joined(separator: " "), width: width - indent).map { margin + $0 })
            paragraph = []
        }
        for line in text.split(separator: "\n", omittingEmptySubsequences: false) {
            if line.allSatisfy(\.isWhitespace) {
                flush()
                blankPending = true
            } else if line.first == " " {
                flush()
                emit([margin + String(line.reversed().drop { $0 == " " }.reversed())])
            } else {
                paragraph.append(line)
            }
        }
        flush()
        return result
    }

    /// Greedy word wrap; a word longer than the width gets a line of its own rather than being cut.
    static func wrap(_ text: String, width: Int) -> [String] {
        var lines: [String] = []
        var line = ""
        for word in text.split(whereSeparator: \.isWhitespace) {
            if line.isEmpty {
                line = String(word)
            } else if line.count + 1 + word.count <= width {
                line += " " + word
            } else {
                lines.append(line)
                line = String(word)
            }
        }
        if !line.isEmpty { lines.append(line) }
        return lines
    }
}
