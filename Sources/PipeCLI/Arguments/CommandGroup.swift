/// A titled list of subcommands in help, such as `COMMANDS` or `HOST COMMANDS`.
public struct CommandGroup: Equatable, Sendable {
    /// The heading shown in help, conventionally upper case.
    public var title: String
    /// The commands in the order help lists them.
    public var commands: [CommandSpec]

    public init(_ title: String, _ commands: [CommandSpec]) {
        self.title = title
        self.commands = commands
    }
}
