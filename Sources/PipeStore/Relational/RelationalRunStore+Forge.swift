import Foundation
import PipeCore

/// Webhook deliveries seen, the outbox of updates for forges, the ids of what Pipe made there and approvals of
/// fork pull requests (schema version 7).
///
/// A claim of an update is one `BEGIN IMMEDIATE` transaction that also marks the target's older waiting updates
/// `superseded`, so whichever controllers share the store, one target is sent by one sender at a time, in order,
/// and only its newest state goes out.
extension RelationalRunStore {
    /// How long a delivery is remembered: a replay within it is recognised by its body.
    static var deliveriesKeptSeconds: TimeInterval { 90 * 24 * 3600 }
    /// How long sent and superseded updates stay, for `pipe forge` to show.
    static var sentUpdatesKeptSeconds: TimeInterval { 30 * 24 * 3600 }

    public func recordDelivery(_ delivery: ForgeDelivery) throws -> ForgeDeliveryRecording {
        try requireName(delivery.forge, "forge name")
        return try write { db in
            _ = try db.execute(
                "DELETE FROM forge_deliveries WHERE received_at < ?",
                [StoreTimestamp.format(delivery.receivedAt.addingTimeInterval(-Self.deliveriesKeptSeconds))])
            let earlier = try db.first(
                """
                SELECT received_at, delivery_id FROM forge_deliveries
                WHERE body_digest = ? OR (forge = ? AND delivery_id = ?) ORDER BY received_at LIMIT 1
                """, [delivery.bodyDigest, delivery.forge, delivery.deliveryID]
            ) { row in (row.text(0), row.text(1)) }
            if let earlier {
                return .seenBefore(
                    firstAt: try date(earlier.0, "the time of an earlier delivery"), deliveryID: earlier.1)
            }
            _ = try db.execute(
                """
                INSERT INTO forge_deliveries (body_digest, forge, delivery_id, event, rate_key, received_at)
                VALUES (?, ?, ?, ?, ?, ?)
                """,
                [
                    delivery.bodyDigest, delivery.forge, delivery.deliveryID, delivery.event, delivery.rateKey,
                    StoreTimestamp.format(delivery.receivedAt),
                ])
            return .new
        }
    }

    public func deliveryCount(rateKey: String, since date: Date) throws -> Int {
        try read { db in
            Int(
                try db.integer(
                    "SELECT count(*) FROM forge_deliveries WHERE rate_key = ? AND received_at >= ?",
                    [rateKey, StoreTimestamp.format(date)]) ?? 0)
        }
    }

    // MARK: - The outbox

    static var outboxColumns: String {
        """
        seq, forge, target, kind, payload, run_id, created_at, state, attempts, next_attempt_at, last_error,
        claimed_by, claimed_until, sent_at
        """
    }

    public func enqueueForgeUpdate(_ draft: ForgeUpdate.Draft) throws -> ForgeUpdate {
        try requireName(draft.forge, "forge name")
        try requireName(draft.target, "update target")
        guard (try? JSONSerialization.jsonObject(with: Data(draft.payload.utf8))) != nil else {
            throw StoreError.invalidInput("the payload of the update for \(draft.target) is not JSON")
        }
        return try write { db in
            let created = StoreTimestamp.format(draft.createdAt)
            _ = try db.execute(
                "DELETE FROM forge_outbox WHERE state IN ('sent', 'superseded') AND created_at < ?",
                [StoreTimestamp.format(draft.createdAt.addingTimeInterval(-Self.sentUpdatesKeptSeconds))])
            let sequence = try db.insert(
                """
                INSERT INTO forge_outbox (forge, target, kind, payload, run_id, created_at, state, next_attempt_at)
                VALUES (?, ?, ?, ?, ?, ?, 'pending', ?)
                """, [draft.forge, draft.target, draft.kind, draft.payload, draft.runID, created, created],
                returning: "seq")
            guard let update = try outboxItem(db, sequence) else {
                throw StoreError.invalidInput("the update for \(draft.target) was not written")
            }
            return update
        }
    }

    public func claimForgeUpdate(
        owner: String, at date: Date, leaseSeconds: Double, excludingForges: Set<String>
    ) throws -> ForgeUpdate? {
        try requireName(owner, "sender")
        let now = StoreTimestamp.format(date)
        // The sender asks every second: an empty outbox is answered by a read, without taking the write lock.
        let waiting = try read { db in
            try db.integer("SELECT count(*) FROM forge_outbox WHERE state IN ('pending', 'sending')") ?? 0
        }
        guard waiting > 0 else { return nil }
        return try write { db in
            // A sender that died mid-send left its claim: the update waits again (sending twice changes nothing).
            _ = try db.execute(
                """
                UPDATE forge_outbox SET state = 'pending', claimed_by = NULL, claimed_until = NULL
                WHERE state = 'sending' AND claimed_until <= ?
                """, [now])
            let excluded = excludingForges.sorted()
            // An empty `IN ()` is SQLite's alone: without exclusions the condition is left out.
            let notExcluded =
                excluded.isEmpty ? "" : "AND forge NOT IN (\(excluded.map { _ in "?" }.joined(separator: ", ")))"
            let target = try db.first(
                """
                SELECT forge, target FROM forge_outbox AS waiting
                WHERE state = 'pending' AND next_attempt_at <= ? AND NOT EXISTS (
                    SELECT 1 FROM forge_outbox AS held
                    WHERE held.forge = waiting.forge AND held.target = waiting.target AND held.state = 'sending')
                    \(notExcluded)
                ORDER BY seq LIMIT 1
                """, [now] + excluded
            ) { row in (row.text(0) ?? "", row.text(1) ?? "") }
            guard let target else { return nil }
            guard
                let newest = try db.integer(
                    "SELECT max(seq) FROM forge_outbox WHERE forge = ? AND target = ? AND state = 'pending'",
                    [target.0, target.1])
            else { return nil }
            _ = try db.execute(
                """
                UPDATE forge_outbox SET state = 'superseded'
                WHERE forge = ? AND target = ? AND state = 'pending' AND seq < ?
                """, [target.0, target.1, newest])
            _ = try db.execute(
                "UPDATE forge_outbox SET state = 'sending', claimed_by = ?, claimed_until = ? WHERE seq = ?",
                [owner, StoreTimestamp.format(date.addingTimeInterval(max(1, leaseSeconds))), newest])
            return try outboxItem(db, newest)
        }
    }

    @discardableResult
    public func finishForgeUpdate(_ sequence: Int64, owner: String, _ result: ForgeUpdateResult, at date: Date)
        throws -> Bool
    {
        try write { db in
            let changed: Int
            switch result {
            case .sent:
                changed = try db.execute(
                    """
                    UPDATE forge_outbox SET state = 'sent', attempts = attempts + 1, sent_at = ?, last_error = NULL,
                        claimed_by = NULL, claimed_until = NULL
                    WHERE seq = ? AND state = 'sending' AND claimed_by = ?
                    """, [StoreTimestamp.format(date), sequence, owner])
            case .retry(let next, let error):
                changed = try db.execute(
                    """
                    UPDATE forge_outbox SET state = 'pending', attempts = attempts + 1, next_attempt_at = ?,
                        last_error = ?, claimed_by = NULL, claimed_until = NULL
                    WHERE seq = ? AND state = 'sending' AND claimed_by = ?
                    """, [StoreTimestamp.format(next), Self.bounded(error), sequence, owner])
            case .failed(let error):
                changed = try db.execute(
                    """
                    UPDATE forge_outbox SET state = 'failed', attempts = attempts + 1, last_error = ?,
                        claimed_by = NULL, claimed_until = NULL
                    WHERE seq = ? AND state = 'sending' AND claimed_by = ?
                    """, [Self.bounded(error), sequence, owner])
            }
            return changed == 1
        }
    }

    public func forgeUpdates(states: Set<ForgeUpdate.State>?, limit: Int) throws -> [ForgeUpdate] {
        try read { db in
            var sql = "SELECT \(Self.outboxColumns) FROM forge_outbox"
            var values: [any StoreBindable] = []
            if let states {
                guard !states.isEmpty else { return [] }
                sql += " WHERE state IN (\(states.map { _ in "?" }.joined(separator: ", ")))"
                values += states.map(\.rawValue).sorted()
            }
            sql += " ORDER BY seq LIMIT ?"
            values.append(max(0, limit))
            return try db.query(sql, values) { try outboxUpdate(from: $0) }
        }
    }

    private func outboxItem(_ db: any StoreDatabase, _ sequence: Int64) throws -> ForgeUpdate? {
        try db.first("SELECT \(Self.outboxColumns) FROM forge_outbox WHERE seq = ?", [sequence]) {
            try outboxUpdate(from: $0)
        }
    }

    private func outboxUpdate(from row: any StoreRow) throws -> ForgeUpdate {
        let sequence = row.int64(0) ?? 0
        let what = "update \(sequence) of the forge outbox"
        return ForgeUpdate(
            sequence: sequence,
            draft: ForgeUpdate.Draft(
                forge: row.text(1) ?? "", target: row.text(2) ?? "", kind: row.text(3) ?? "",
                payload: row.text(4) ?? "{}", runID: row.text(5),
                createdAt: try date(row.text(6), "the time of \(what)")),
            state: try decode(ForgeUpdate.State.self, row.text(7), "the state of \(what)"), attempts: row.int(8) ?? 0,
            nextAttemptAt: try date(row.text(9), "the next try of \(what)"), lastError: row.text(10),
            claimedBy: row.text(11), claimedUntil: try optionalDate(row.text(12), "the claim of \(what)"),
            sentAt: try optionalDate(row.text(13), "the sending of \(what)"))
    }

    /// Errors come from forges: kept short.
    private static func bounded(_ text: String) -> String {
        text.count <= 2000 ? text : String(text.prefix(2000)) + "…"
    }

    // MARK: - What Pipe made on a forge

    public func forgeObjectID(forge: String, key: String) throws -> String? {
        try read { db in try db.text("SELECT id FROM forge_objects WHERE forge = ? AND key = ?", [forge, key]) }
    }

    public func recordForgeObjectID(forge: String, key: String, id: String, at date: Date) throws {
        try requireName(forge, "forge name")
        try requireName(key, "forge object key")
        try requireName(id, "forge object id")
        _ = try write { db in
            try db.execute(
                """
                INSERT INTO forge_objects (forge, key, id, recorded_at) VALUES (?, ?, ?, ?)
                ON CONFLICT (forge, key) DO UPDATE SET id = excluded.id, recorded_at = excluded.recorded_at
                """, [forge, key, id, StoreTimestamp.format(date)])
        }
    }

    // MARK: - Approvals

    public func recordForgeApproval(_ approval: ForgeApproval) throws {
        try requireName(approval.forge, "forge name")
        try requireName(approval.approvedBy, "approver")
        _ = try write { db in
            try db.execute(
                """
                INSERT INTO forge_approvals (forge, repository, number, head_sha, approved_by, via, approved_at)
                VALUES (?, ?, ?, ?, ?, ?, ?)
                ON CONFLICT (forge, repository, number, head_sha) DO NOTHING
                """,
                [
                    approval.forge, approval.repository, approval.number, approval.headSHA, approval.approvedBy,
                    approval.via, StoreTimestamp.format(approval.approvedAt),
                ])
        }
    }

    public func forgeApproval(forge: String, repository: String, number: Int, headSHA: String) throws
        -> ForgeApproval?
    {
        try read { db in
            try db.first(
                """
                SELECT approved_by, via, approved_at FROM forge_approvals
                WHERE forge = ? AND repository = ? AND number = ? AND head_sha = ?
                """, [forge, repository, number, headSHA]
            ) { row in
                ForgeApproval(
                    forge: forge, repository: repository, number: number, headSHA: headSHA,
                    approvedBy: row.text(0) ?? "", via: row.text(1) ?? "",
                    approvedAt: try date(row.text(2), "the time of an approval of #\(number)"))
            }
        }
    }
}
