import Foundation
import PipeCore

/// The request ledger (`RequestLedger`): replay claims and rate buckets, one write transaction each, so every
/// controller of a store decides the same way.
extension RelationalRunStore {
    public func claimOnce(kind: String, key: String, until expiresAt: Date, now: Date) throws -> Bool {
        try write { db in
            // Expired claims are pruned as new ones arrive (by index), so the table holds one window's requests.
            _ = try db.execute("DELETE FROM request_claims WHERE expires_at <= ?", [StoreTimestamp.format(now)])
            let seen = try db.first(
                "SELECT 1 FROM request_claims WHERE kind = ? AND key = ?", [kind, key]
            ) { _ in true }
            guard seen == nil else { return false }
            _ = try db.execute(
                "INSERT INTO request_claims (kind, key, expires_at) VALUES (?, ?, ?)",
                [kind, key, StoreTimestamp.format(expiresAt)])
            return true
        }
    }

    public func takeFromBucket(_ key: String, capacity: Double, perSecond: Double, now: Date) throws -> Double? {
        try write { db in
            let held = try db.first("SELECT tokens, updated_at FROM request_buckets WHERE key = ?", [key]) { row in
                (tokens: row.double(0) ?? 0, updated: StoreTimestamp.parse(row.text(1) ?? ""))
            }
            var tokens = capacity
            if let held, let updated = held.updated {
                tokens = min(capacity, held.tokens + max(0, now.timeIntervalSince(updated)) * perSecond)
            }
            let wait: Double? = tokens >= 1 ? nil : (1 - tokens) / perSecond
            if wait == nil { tokens -= 1 }
            _ = try db.execute(
                """
                INSERT INTO request_buckets (key, tokens, updated_at) VALUES (?, ?, ?)
                ON CONFLICT (key) DO UPDATE SET tokens = excluded.tokens, updated_at = excluded.updated_at
                """, [key, tokens, StoreTimestamp.format(now)])
            // A bucket untouched for as long as a full refill takes is full: the same as no bucket.
            let full = now.addingTimeInterval(-capacity / max(perSecond, 1e-9))
            _ = try db.execute("DELETE FROM request_buckets WHERE updated_at < ?", [StoreTimestamp.format(full)])
            return wait
        }
    }
}
