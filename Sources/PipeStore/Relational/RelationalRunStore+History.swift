import Foundation
import PipeCore

/// Pruning old runs, and the facts only history can tell: a test's record and its flakiness.
extension RelationalRunStore {
    /// Runs removed per transaction, so a large prune never holds the write lock for long.
    public static var pruneBatchSize: Int { 100 }

    /// Removes at most `pruneBatchSize` runs per transaction, choosing them again in each.
    public func prune(_ policy: PrunePolicy) throws -> PruneReport {
        guard policy.keepLatest != nil || policy.olderThan != nil else {
            throw StoreError.invalidInput(
                "say which runs to prune: keep the newest N (--keep) or those older than a date (--older)")
        }
        if let keep = policy.keepLatest, keep < 0 {
            throw StoreError.invalidInput("--keep takes a number of runs, 0 or more; got \(keep)")
        }
        if policy.dryRun {
            return PruneReport(
                removed: try read { db in try pruneCandidates(db, policy, limit: db.dialect.noLimit) }, dryRun: true)
        }
        var removed: [PrunedRun] = []
        while true {
            // Candidates are chosen again in each transaction: a run that started or ended meanwhile is judged on
            // what is true when it would be removed.
            let batch = try write { db -> (candidates: Int, deleted: [PrunedRun]) in
                let candidates = try pruneCandidates(db, policy, limit: Self.pruneBatchSize)
                // The guard repeats the rule in the statement that deletes: a run in progress is never removed.
                let deleted = try candidates.filter { run in
                    try db.execute(
                        "DELETE FROM runs WHERE id = ? AND status NOT IN (?, ?)",
                        [run.runID, RunStatus.queued.rawValue, RunStatus.running.rawValue]) == 1
                }
                return (candidates: candidates.count, deleted: deleted)
            }
            removed += batch.deleted
            if batch.candidates < Self.pruneBatchSize { break }
        }
        return PruneReport(removed: removed, dryRun: false)
    }

    /// The runs `policy` removes, oldest first, with their artifacts; `limit` the dialect's `noLimit` for all.
    private func pruneCandidates(_ db: any StoreDatabase, _ policy: PrunePolicy, limit: Int?) throws -> [PrunedRun] {
        let inProgress = [RunStatus.queued.rawValue, RunStatus.running.rawValue]
        let runs = try db.query(
            """
            SELECT id, pipeline, status, started_at, host_name, remote_run_folder, \(db.dialect.integer("remote_cleaned_at IS NULL"))
            FROM (
                SELECT *, row_number() OVER (ORDER BY started_at DESC, id DESC) AS newness FROM runs
                WHERE status NOT IN (?, ?) AND (? IS NULL OR pipeline = ?)
            ) AS ranked
            WHERE (? IS NULL OR newness > ?) AND (? IS NULL OR started_at < ?)
            ORDER BY started_at, id LIMIT ?
            """,
            [
                inProgress[0], inProgress[1], policy.pipeline, policy.pipeline, policy.keepLatest, policy.keepLatest,
                policy.olderThan.map(StoreTimestamp.format), policy.olderThan.map(StoreTimestamp.format), limit,
            ]
        ) { row in
            let runID = row.text(0) ?? ""
            let status = try decode(RunStatus.self, row.text(2), "the status of run \(runID)")
            var remote: RemoteCleanup?
            if let folder = row.text(5), row.int64(6) == 1 {
                remote = RemoteCleanup(runID: runID, hostName: row.text(4), remoteRunFolder: folder, status: status)
            }
            return PrunedRun(
                runID: runID, pipeline: row.text(1) ?? "", status: status,
                startedAt: try date(row.text(3), "the start of run \(runID)"), artifacts: [],
                uncleanedRemoteFolder: remote)
        }
        return try runs.map { run in
            var run = run
            run.artifacts = try artifacts(db, "run_id = ?", [run.runID])
            return run
        }
    }

    public func testHistory(identifier: String, pipeline: String?, limit: Int) throws -> [TestHistoryEntry] {
        try read { db in
            try db.query(
                """
                SELECT r.id, r.pipeline, l.name, a.number, r.commit_sha, t.status, t.duration_seconds,
                    t.failure_message, a.started_at
                FROM test_results t
                JOIN attempts a ON a.id = t.attempt_id
                JOIN layers l ON l.id = a.layer_id
                JOIN runs r ON r.id = l.run_id
                WHERE t.identifier = ? AND (? IS NULL OR r.pipeline = ?)
                ORDER BY a.started_at DESC, a.id DESC LIMIT ?
                """, [identifier, pipeline, pipeline, max(limit, 0)]
            ) { row in
                let runID = row.text(0) ?? ""
                return TestHistoryEntry(
                    runID: runID, pipeline: row.text(1) ?? "", layer: row.text(2) ?? "", attempt: row.int(3) ?? 0,
                    commit: row.text(4),
                    status: try decode(TestCaseResult.Status.self, row.text(5), "a result of \(identifier)"),
                    durationSeconds: row.double(6), failureMessage: row.text(7),
                    at: try date(row.text(8), "an attempt start of run \(runID)"))
            }
        }
    }

    public func flakyTests(pipeline: String?, since: Date?) throws -> [FlakyTest] {
        let passed = TestCaseResult.Status.passed.rawValue
        let failed = TestCaseResult.Status.failed.rawValue
        let sinceText = since.map(StoreTimestamp.format)
        return try read { db in
            try db.query(
                """
                SELECT r.pipeline, l.name, t.identifier, r.commit_sha, sum(\(db.dialect.integer("t.status = ?"))),
                    sum(\(db.dialect.integer("t.status = ?"))), \(db.dialect.distinctList("r.started_at || ' ' || r.id")),
                    max(a.started_at)
                FROM test_results t
                JOIN attempts a ON a.id = t.attempt_id
                JOIN layers l ON l.id = a.layer_id
                JOIN runs r ON r.id = l.run_id
                WHERE r.commit_sha IS NOT NULL AND t.status IN (?, ?) AND (? IS NULL OR r.pipeline = ?)
                    AND (? IS NULL OR a.started_at >= ?)
                GROUP BY r.pipeline, l.name, t.identifier, r.commit_sha
                HAVING sum(\(db.dialect.integer("t.status = ?"))) > 0 AND sum(\(db.dialect.integer("t.status = ?"))) > 0
                ORDER BY max(a.started_at) DESC, r.pipeline, l.name, t.identifier
                """,
                [passed, failed, passed, failed, pipeline, pipeline, sinceText, sinceText, passed, failed]
            ) { row in
                FlakyTest(
                    pipeline: row.text(0) ?? "", layer: row.text(1) ?? "", identifier: row.text(2) ?? "",
                    commit: row.text(3) ?? "", passes: row.int(4) ?? 0, failures: row.int(5) ?? 0,
                    // Oldest first: by the runs' start times (milliseconds; a run id tells only the second).
                    runIDs: (row.text(6) ?? "").split(separator: ",").sorted()
                        .map { String($0.split(separator: " ").last ?? $0) },
                    lastSeen: try date(row.text(7), "the last attempt of a flaky test"))
            }
        }
    }
}
