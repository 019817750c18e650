/// A command that cannot be understood; the answer is the help text, with what went wrong first.
public struct ChatCommandError: Error, Sendable, Equatable, CustomStringConvertible {
    /// What went wrong, in words for the person who typed it.
    public var message: String
    /// The command it concerns, whose usage is shown; `nil` for an unknown command (the whole help is shown).
    public var command: String?

    public init(_ message: String, command: String?) {
        self.message = message
        self.command = command
    }

    public var description: String { message }
}
