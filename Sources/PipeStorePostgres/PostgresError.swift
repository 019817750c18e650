/// A failure reported by libpq or the server: the server's SQLSTATE (empty when the connection itself failed), its
/// message, and what Pipe was doing.
public struct PostgresError: Error, CustomStringConvertible, Equatable {
    /// The five-character SQLSTATE, or "" when there is none (no connection, a libpq failure).
    public var sqlState: String
    public var message: String
    public var context: String

    public var description: String { "\(message) (while \(context))" }

    /// The connection is gone or never came up (SQLSTATE class 08, or no answer at all): worth reconnecting.
    public var isConnectionLost: Bool { sqlState.isEmpty || sqlState.hasPrefix("08") || sqlState == "57P01" }

    /// The transaction lost a race the server resolved (serialization failure, deadlock): running it again is safe.
    public var isRetryable: Bool { sqlState == "40001" || sqlState == "40P01" }

    /// A `CHECK` failed or a value did not parse as its column's type (a JSON column given other text).
    public var isInvalidValue: Bool { sqlState == "23514" || sqlState == "22P02" }

    public static let uniqueViolation = "23505"
}
