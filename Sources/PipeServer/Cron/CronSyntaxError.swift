/// Why a cron expression or an interval could not be read: what is wrong, and where in the text.
public struct CronSyntaxError: Error, Sendable, Equatable, CustomStringConvertible {
    /// What is wrong and what to write instead.
    public var message: String
    /// The offset, in characters, of the offending part within the expression (0 for the whole of it).
    public var offset: Int

    public init(_ message: String, offset: Int = 0) {
        self.message = message
        self.offset = offset
    }

    public var description: String { message }
}
