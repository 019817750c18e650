import Foundation

/// A host as `/pipe hosts` shows it.
public struct ChatHostReport: Sendable, Equatable {
    public var name: String
    /// `user@address:port`.
    public var endpoint: String
    /// Runs it takes at once.
    public var capacity: Int
    /// Runs holding a slot now.
    public var busy: Int
    /// The last health check: usable or not (`nil`: never checked).
    public var usable: Bool?
    public var problem: String?
    public var checkedAt: Date?

    public init(
        name: String, endpoint: String, capacity: Int, busy: Int, usable: Bool?, problem: String?, checkedAt: Date?
    ) {
        self.name = name
        self.endpoint = endpoint
        self.capacity = capacity
        self.busy = busy
        self.usable = usable
        self.problem = problem
        self.checkedAt = checkedAt
    }
}
