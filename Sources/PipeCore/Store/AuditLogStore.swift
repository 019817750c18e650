import Foundation

/// An append-only log of requests that came from outside (a chat command, allowed or refused), kept in the run
/// store beside the runs they caused.
public protocol AuditLogStore: AnyObject {
    /// Appends one entry; `entry` is a JSON object.
    func appendAudit(source: String, entry: String, at date: Date) throws

    /// The latest entries of `source` (every source when `nil`), newest first.
    func auditEntries(source: String?, limit: Int) throws -> [AuditEntry]
}

/// One entry of the audit log.
public struct AuditEntry: Sendable, Equatable {
    public var id: Int64
    public var source: String
    public var at: Date
    /// The entry as JSON.
    public var entry: String

    public init(id: Int64, source: String, at: Date, entry: String) {
        self.id = id
        self.source = source
        self.at = at
        self.entry = entry
    }
}
