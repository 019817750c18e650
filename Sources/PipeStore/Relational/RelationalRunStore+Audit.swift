import Foundation
import PipeCore

extension RelationalRunStore {
    public func appendAudit(source: String, entry: String, at date: Date) throws {
        _ = try write { db in
            try db.execute(
                "INSERT INTO audit_log (source, at, entry) VALUES (?, ?, ?)",
                [source, StoreTimestamp.format(date), entry])
        }
    }

    public func auditEntries(source: String?, limit: Int) throws -> [AuditEntry] {
        try read { db in
            try db.query(
                """
                SELECT id, source, at, entry FROM audit_log WHERE (?1 IS NULL OR source = ?1)
                ORDER BY id DESC LIMIT ?2
                """, [source, limit]
            ) { row in
                AuditEntry(
                    id: row.int64(0) ?? 0, source: row.text(1) ?? "",
                    at: try date(row.text(2), "the time of an audit entry"), entry: row.text(3) ?? "{}")
            }
        }
    }
}
