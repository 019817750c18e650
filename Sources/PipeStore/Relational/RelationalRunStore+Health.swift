import Foundation
import PipeCore

/// Host health checks, in the `host_health` table (schema version 3).
extension RelationalRunStore {
    /// Checks kept per host: enough to see a trend, never a growing table.
    static var healthRecordsKept: Int { 100 }

    public func recordHealth(_ record: HostHealthRecord) throws {
        try requireName(record.host, "host name")
        if let latency = record.latencySeconds, !(latency.isFinite && latency >= 0) {
            throw StoreError.invalidInput("the latency of host \(record.host) is \(latency); it must be 0 s or more")
        }
        try write { db in
            try db.execute(
                """
                INSERT INTO host_health (host, checked_at, usable, problem, latency_seconds, source)
                VALUES (?, ?, ?, ?, ?, ?)
                """,
                [
                    record.host, StoreTimestamp.format(record.checkedAt), record.usable,
                    record.usable ? nil : (record.problem ?? "failed its health check"), record.latencySeconds,
                    record.source,
                ])
            try db.execute(
                """
                DELETE FROM host_health WHERE host = ? AND id NOT IN (
                    SELECT id FROM host_health WHERE host = ? ORDER BY checked_at DESC, id DESC LIMIT ?)
                """, [record.host, record.host, Self.healthRecordsKept])
        }
    }

    public func hostHealth(_ hosts: [String]?) throws -> [HostHealth] {
        try read { db in
            // One look at which hosts were ever checked, then three queries for each of those only: the controller
            // asks for all its hosts on every scheduling pass, and most have no record.
            let checked = try db.query("SELECT DISTINCT host FROM host_health ORDER BY host") { $0.text(0) ?? "" }
            let names = hosts.map { asked in asked.filter(Set(checked).contains) } ?? checked
            return try names.compactMap { host in try health(db, host: host) }
        }
    }

    private func health(_ db: any StoreDatabase, host: String) throws -> HostHealth? {
        let latest = try db.first(
            """
            SELECT checked_at, usable, problem, latency_seconds, source FROM host_health WHERE host = ?
            ORDER BY checked_at DESC, id DESC LIMIT 1
            """, [host]
        ) { row in
            HostHealthRecord(
                host: host, checkedAt: try date(row.text(0), "the time of a health check of \(host)"),
                usable: row.int64(1) == 1, problem: row.text(2), latencySeconds: row.double(3),
                source: row.text(4) ?? "")
        }
        guard let latest else { return nil }
        let lastUsable = try db.text("SELECT max(checked_at) FROM host_health WHERE host = ? AND usable = 1", [host])
        let failures =
            try db.integer(
                "SELECT count(*) FROM host_health WHERE host = ? AND usable = 0 AND checked_at > ?",
                [host, lastUsable ?? ""]) ?? 0
        return HostHealth(
            host: host, latest: latest,
            lastUsableAt: try optionalDate(lastUsable, "the last passed health check of \(host)"),
            consecutiveFailures: Int(failures))
    }
}
