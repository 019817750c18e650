/// A declarative description of one command: its name, help texts, arguments, options and subcommands.
///
/// The root of the tree is the program itself (`pipe`); a command with subcommands (`pipe runs`) only routes to
/// them and takes no positional arguments. Check a tree with ``definitionProblems`` in a unit test;
/// ``CommandLineTool`` refuses to start with a broken one.
public struct CommandSpec: Equatable, Sendable {
    /// The word that selects the command: `run` in `pipe run`.
    public var name: String
    /// One line, shown in the parent's command list and under the usage line.
    public var summary: String
    /// Longer explanation: paragraphs separated by blank lines, rewrapped to the help width; lines that start with
    /// a space are kept as they are (for examples).
    public var discussion: String
    public var arguments: [ArgumentSpec]
    /// Options of this command, also accepted after any of its subcommands.
    public var options: [OptionSpec]
    public var groups: [CommandGroup]
    /// Extra sections at the end of this command's help (e.g. `EXIT CODES`).
    public var sections: [HelpSection]

    public init(
        name: String, summary: String, discussion: String = "", arguments: [ArgumentSpec] = [],
        options: [OptionSpec] = [], groups: [CommandGroup] = [], sections: [HelpSection] = []
    ) {
        self.name = name
        self.summary = summary
        self.discussion = discussion
        self.arguments = arguments
        self.options = options
        self.groups = groups
        self.sections = sections
    }

    /// Shorthand for a command whose subcommands form one untitled `COMMANDS` group.
    public init(
        name: String, summary: String, discussion: String = "", options: [OptionSpec] = [],
        subcommands: [CommandSpec], sections: [HelpSection] = []
    ) {
        self.init(
            name: name, summary: summary, discussion: discussion, options: options,
            groups: [CommandGroup("COMMANDS", subcommands)], sections: sections)
    }

    /// Every subcommand, across groups, in help order.
    public var subcommands: [CommandSpec] { groups.flatMap(\.commands) }

    /// The subcommand called `name`, if any.
    public func subcommand(named name: String) -> CommandSpec? {
        subcommands.first { $0.name == name }
    }
}
