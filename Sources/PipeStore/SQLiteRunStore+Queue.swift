import Foundation
import PipeBasics
import PipeCore

/// The controller's queue, in the `run_queue` table (schema version 4).
///
/// Each change is one `BEGIN IMMEDIATE` transaction; a claim is an `UPDATE … WHERE state = 'queued'`, so of two
/// processes claiming one item only one changes it. A trigger key is a `UNIQUE` column: a second request for the
/// same commit or schedule slot cannot be added, whichever process asks. Items are never deleted by the controller:
/// they are the history of what was asked and what became of it.
extension SQLiteRunStore: RunQueue {
    static let queueColumns = """
        run_id, pipeline, ref, parameters, source, priority, requested_by, reason, trigger_key, state, attempt,
        requeue_of, enqueued_at, claimed_at, claimed_host, claimed_pid, claimed_start, finished_at, problem, forge,
        rerun_of
        """

    public func enqueue(_ request: QueueRequest, at date: Date) throws -> EnqueueOutcome {
        try write { db in try insertQueued(db, request, at: date) }
    }

    func insertQueued(
        _ db: SQLiteDatabase, _ request: QueueRequest, at date: Date, attempt: Int = 1,
        requeueOf: String? = nil, enqueuedAt: Date? = nil
    ) throws -> EnqueueOutcome {
        try requireName(request.pipeline, "pipeline name")
        try requireName(request.requestedBy, "requester")
        if let key = request.triggerKey,
            let existing = try db.text("SELECT run_id FROM run_queue WHERE trigger_key = ?", [key])
        {
            return .alreadyTriggered(key: key, runID: existing)
        }
        let parameters = try StoreJSON.encode(request.parameters)
        let forge = try request.forge.map { try StoreJSON.encode($0) }
        // Four random hex digits per second: a clash with a queued run or a run of `pipe run` is rare; draw again.
        for _ in 0..<64 {
            let runID = RunID.generate(at: date).value
            let taken =
                try db.integer(
                    "SELECT (SELECT count(*) FROM run_queue WHERE run_id = ?) + (SELECT count(*) FROM runs WHERE id = ?)",
                    [runID, runID]) ?? 0
            if taken > 0 { continue }
            try db.execute(
                """
                INSERT INTO run_queue (run_id, pipeline, ref, parameters, source, priority, requested_by, reason,
                    trigger_key, state, attempt, requeue_of, enqueued_at, forge, rerun_of)
                VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, 'queued', ?, ?, ?, ?, ?)
                """,
                [
                    runID, request.pipeline, request.ref, parameters, request.source.rawValue, request.source.priority,
                    request.requestedBy, request.reason, request.triggerKey, attempt, requeueOf,
                    StoreTimestamp.format(enqueuedAt ?? date), forge, request.rerunOf,
                ])
            guard let queued = try queueItem(db, runID) else { break }
            return .queued(queued)
        }
        throw StoreError.invalidInput("could not find a free run id for the queue at \(StoreTimestamp.format(date))")
    }

    public func queueItems(states: Set<QueuedRun.State>?, limit: Int) throws -> [QueuedRun] {
        try read { db in
            var sql = "SELECT \(Self.queueColumns) FROM run_queue"
            var values: [any SQLiteBindable] = []
            if let states {
                guard !states.isEmpty else { return [] }
                sql += " WHERE state IN (\(states.map { _ in "?" }.joined(separator: ", ")))"
                values += states.map(\.rawValue).sorted()
            }
            sql += " ORDER BY priority, enqueued_at, seq LIMIT ?"
            values.append(max(0, limit))
            return try db.query(sql, values) { try queuedRun(from: $0) }
        }
    }

    public func waitingPipelines(limit: Int) throws -> [(runID: String, pipeline: String)] {
        try read { db in
            try db.query(
                "SELECT run_id, pipeline FROM run_queue WHERE state = 'queued' ORDER BY priority, enqueued_at, seq LIMIT ?",
                [max(0, limit)]
            ) { (runID: $0.text(0) ?? "", pipeline: $0.text(1) ?? "") }
        }
    }

    public func queuedRun(_ runID: String) throws -> QueuedRun? {
        try read { db in try queueItem(db, runID) }
    }

    func queueItem(_ db: SQLiteDatabase, _ runID: String) throws -> QueuedRun? {
        try db.first("SELECT \(Self.queueColumns) FROM run_queue WHERE run_id = ?", [runID]) {
            try queuedRun(from: $0)
        }
    }

    public func claim(runID: String, owner: RunOwner, at date: Date) throws -> Bool {
        try write { db in try claimOne(db, runID: runID, owner: owner, at: date) }
    }

    public func claim(runIDs: [String], owner: RunOwner, at date: Date) throws -> Set<String> {
        guard !runIDs.isEmpty else { return [] }
        return try write { db in
            var taken: Set<String> = []
            for runID in runIDs where try claimOne(db, runID: runID, owner: owner, at: date) { taken.insert(runID) }
            return taken
        }
    }

    private func claimOne(_ db: SQLiteDatabase, runID: String, owner: RunOwner, at date: Date) throws -> Bool {
        try db.execute(
            """
            UPDATE run_queue SET state = 'claimed', claimed_at = ?, claimed_host = ?, claimed_pid = ?,
                claimed_start = ?
            WHERE run_id = ? AND state = 'queued'
            """, [StoreTimestamp.format(date), owner.hostname, owner.pid, owner.processStart, runID]) == 1
    }

    public func releaseClaim(runID: String) throws {
        try write { db in
            try requireQueueItem(db, runID)
            _ = try db.execute(
                """
                UPDATE run_queue SET state = 'queued', claimed_at = NULL, claimed_host = NULL, claimed_pid = NULL,
                    claimed_start = NULL
                WHERE run_id = ? AND state = 'claimed'
                """, [runID])
        }
    }

    public func finish(runID: String, state: QueuedRun.State, problem: String?, at date: Date) throws {
        guard [.finished, .failed, .interrupted].contains(state) else {
            throw StoreError.invalidInput("a queued run ends finished, failed or interrupted, not \(state.rawValue)")
        }
        try write { db in
            try requireQueueItem(db, runID)
            _ = try db.execute(
                """
                UPDATE run_queue SET state = ?, problem = coalesce(?, problem), finished_at = ?, claimed_pid = NULL
                WHERE run_id = ? AND state IN ('claimed', 'queued')
                """, [state.rawValue, problem, StoreTimestamp.format(date), runID])
        }
    }

    public func requeueInterrupted(runID: String, problem: String, at date: Date) throws -> QueuedRun? {
        try write { db in
            guard let item = try queueItem(db, runID) else { throw StoreError.runNotFound(runID) }
            guard item.state == .claimed || item.state == .queued else { return nil }
            let again = item.attempt < 2
            try db.execute(
                """
                UPDATE run_queue SET state = 'interrupted', problem = ?, finished_at = ?, claimed_pid = NULL
                WHERE run_id = ?
                """,
                [
                    again ? problem : problem + "; it was requeued once already, so it is not run again",
                    StoreTimestamp.format(date), runID,
                ])
            guard again else { return nil }
            var copy = item.request
            // The key stays with the first attempt: it says the commit or slot was triggered, once.
            copy.triggerKey = nil
            copy.reason = "requeued: run \(runID) was interrupted" + (item.request.reason.map { " (\($0))" } ?? "")
            let outcome = try insertQueued(
                db, copy, at: date, attempt: item.attempt + 1, requeueOf: runID, enqueuedAt: item.enqueuedAt)
            guard let queued = outcome.queued else { return nil }
            try db.execute(
                "UPDATE run_queue SET problem = ? WHERE run_id = ?",
                [problem + "; requeued as run \(queued.runID)", runID])
            return queued
        }
    }

    public func cancelQueued(runID: String, reason: String, at date: Date) throws -> Bool {
        try write { db in
            try requireQueueItem(db, runID)
            return try db.execute(
                "UPDATE run_queue SET state = 'cancelled', problem = ?, finished_at = ? WHERE run_id = ? AND state = 'queued'",
                [reason, StoreTimestamp.format(date), runID]) == 1
        }
    }

    private func requireQueueItem(_ db: SQLiteDatabase, _ runID: String) throws {
        guard try db.integer("SELECT 1 FROM run_queue WHERE run_id = ?", [runID]) != nil else {
            throw StoreError.runNotFound(runID)
        }
    }

    /// Most requests have no parameters: the controller reads hundreds of items per pass, so `{}` skips the decoder.
    private func parameters(_ text: String?, runID: String) throws -> [String: String] {
        if text == "{}" { return [:] }
        return try json([String: String].self, text, "the parameters of queued run \(runID)")
    }

    func queuedRun(from row: SQLiteRow) throws -> QueuedRun {
        let runID = row.text(0) ?? ""
        let source = try decode(QueueSource.self, row.text(4), "the source of queued run \(runID)")
        let owner = row.int64(15).map {
            RunOwner(hostname: row.text(14) ?? "", pid: Int32(truncatingIfNeeded: $0), processStart: row.text(16))
        }
        return QueuedRun(
            runID: runID,
            request: QueueRequest(
                pipeline: row.text(1) ?? "", ref: row.text(2),
                parameters: try parameters(row.text(3), runID: runID),
                source: source, requestedBy: row.text(6) ?? "", reason: row.text(7), triggerKey: row.text(8),
                forge: try row.text(19).map {
                    try json(ForgeTrigger.self, $0, "the forge event of queued run \(runID)")
                },
                rerunOf: row.text(20)),
            priority: row.int(5) ?? source.priority,
            state: try decode(QueuedRun.State.self, row.text(9), "the state of queued run \(runID)"),
            attempt: row.int(10) ?? 1, requeueOf: row.text(11),
            enqueuedAt: try date(row.text(12), "the enqueueing time of run \(runID)"),
            claimedAt: try optionalDate(row.text(13), "the claim time of run \(runID)"), claimedBy: owner,
            finishedAt: try optionalDate(row.text(17), "the end of queued run \(runID)"), problem: row.text(18))
    }
}
