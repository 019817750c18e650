/// A failure of the chat-ops endpoint itself (config, files, the port), in words that say what to do.
public struct ChatOpsError: Error, Sendable, Equatable, CustomStringConvertible {
    public var message: String

    public init(_ message: String) { self.message = message }

    public var description: String { message }
}
