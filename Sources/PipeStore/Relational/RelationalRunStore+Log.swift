import Foundation
import PipeCore

/// Sign-offs and events: append-only tables (SQL triggers refuse updates, and deletes except with the run).
extension RelationalRunStore {
    @discardableResult
    public func appendSignoff(_ signoff: SignoffRequest) throws -> Signoff {
        let at = StoreTimestamp.format(signoff.at)
        let fields = try StoreJSON.encode(signoff.fields)
        return try write { db in
            _ = try runStatus(db, signoff.runID)
            let layerID = try layerID(db, signoff.runID, signoff.layer)
            let id = try db.insert(
                """
                INSERT INTO signoffs (run_id, layer_id, decision, signed_by, note, at, fields, build_sha256)
                VALUES (?, ?, ?, ?, ?, ?, ?, ?)
                """,
                [
                    signoff.runID, layerID, signoff.decision.rawValue, signoff.signedBy, signoff.note, at, fields,
                    signoff.buildSHA256?.lowercased(),
                ],
                returning: "id")
            // Only a manual layer takes its outcome from sign-offs; the latest one decides.
            var evidence = "\(signoff.decision.rawValue) by \(signoff.signedBy) at \(at)"
            if let note = signoff.note, !note.isEmpty { evidence += ": \(note)" }
            try db.execute(
                """
                UPDATE layers SET outcome = ?, evidence = ?, finished_at = ?
                WHERE id = ? AND outcome IN (?, ?, ?)
                """,
                [
                    signoff.decision.outcome.rawValue, try StoreJSON.encode([evidence]), at, layerID,
                    LayerOutcome.awaitingSignoff.rawValue, LayerOutcome.signedOff.rawValue,
                    LayerOutcome.rejected.rawValue,
                ])
            try touch(db, signoff.runID)
            return Signoff(
                id: id, runID: signoff.runID, layer: signoff.layer, decision: signoff.decision,
                signedBy: signoff.signedBy, note: signoff.note, at: try date(at, "the sign-off's time"),
                fields: signoff.fields, buildSHA256: signoff.buildSHA256?.lowercased())
        }
    }

    public func signoffs(runID: String) throws -> [Signoff] {
        try read { db in
            _ = try runStatus(db, runID)
            return try signoffs(db, runID)
        }
    }

    func signoffs(_ db: any StoreDatabase, _ runID: String) throws -> [Signoff] {
        try db.query(
            """
            SELECT s.id, l.name, s.decision, s.signed_by, s.note, s.at, s.fields, s.build_sha256
            FROM signoffs s JOIN layers l ON l.id = s.layer_id
            WHERE s.run_id = ? ORDER BY s.id
            """, [runID]
        ) { row in
            Signoff(
                id: row.int64(0) ?? 0, runID: runID, layer: row.text(1) ?? "",
                decision: try decode(SignoffDecision.self, row.text(2), "a sign-off decision of run \(runID)"),
                signedBy: row.text(3) ?? "", note: row.text(4), at: try date(row.text(5), "a sign-off time"),
                fields: try row.text(6).map {
                    try StoreJSON.decode([String: String].self, from: $0, path: location, what: "a sign-off's fields")
                }, buildSHA256: row.text(7))
        }
    }

    @discardableResult
    public func appendEvents(_ events: [StoredEvent.Draft], runID: String) throws -> [Int64] {
        try write { db in
            _ = try runStatus(db, runID)
            var sequences: [Int64] = []
            sequences.reserveCapacity(events.count)
            for event in events {
                do {
                    sequences.append(
                        try db.insert(
                            "INSERT INTO events (run_id, layer, type, payload, at) VALUES (?, ?, ?, ?, ?)",
                            [runID, event.layer, event.type, event.payload, StoreTimestamp.format(event.at)],
                            returning: "sequence"))
                } catch  where db.isInvalidValue(error) {
                    throw StoreError.invalidInput(
                        "the payload of a '\(event.type)' event of run \(runID) is not valid JSON: "
                            + event.payload.prefix(80))
                }
            }
            try touch(db, runID)
            return sequences
        }
    }

    public func events(runID: String, after sequence: Int64, layer: String?, limit: Int) throws -> [StoredEvent] {
        try read { db in
            _ = try runStatus(db, runID)
            return try db.query(
                """
                SELECT sequence, layer, type, payload, at FROM events
                WHERE run_id = ? AND sequence > ? AND (? IS NULL OR layer = ?)
                ORDER BY sequence LIMIT ?
                """, [runID, sequence, layer, layer, max(limit, 0)]
            ) { row in
                StoredEvent(
                    sequence: row.int64(0) ?? 0, runID: runID, layer: row.text(1), type: row.text(2) ?? "",
                    payload: row.text(3) ?? "null", at: try date(row.text(4), "an event time of run \(runID)"))
            }
        }
    }
}
