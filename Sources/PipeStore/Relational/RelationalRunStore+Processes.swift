import Foundation
import PipeCore

/// What one process asks of, or finds out about, the runs of another.
extension RelationalRunStore {
    public func runningRunOwners() throws -> [(runID: String, owner: RunOwner)] {
        try read { db in
            try db.query(
                "SELECT id, owner_host, owner_pid, owner_start FROM runs WHERE status = ? AND owner_pid IS NOT NULL",
                [RunStatus.running.rawValue]
            ) { row in
                (
                    runID: row.text(0) ?? "",
                    owner: RunOwner(
                        hostname: row.text(1) ?? "", pid: Int32(truncatingIfNeeded: row.int64(2) ?? 0),
                        processStart: row.text(3))
                )
            }
        }
    }

    /// Besides marking each run, appends a `run-interrupted` event to its log (its owner cannot), whose payload
    /// names the owner, its last activity and the layers cancelled.
    public func markInterruptedRuns(at date: Date, isOwnerAlive: (RunOwner) -> RunOwner.Liveness) throws
        -> [InterruptedRun]
    {
        let running = try runningRunOwners()
        // Liveness is judged outside any transaction (it reads /proc); each dead run is then marked in its own
        // short transaction that first checks nobody marked or finished it meanwhile.
        var marked: [InterruptedRun] = []
        for (runID, owner) in running where isOwnerAlive(owner) == .dead {
            if let run = try write({ db in try markInterrupted(db, runID: runID, owner: owner, at: date) }) {
                marked.append(run)
            }
        }
        return marked
    }

    private func markInterrupted(_ db: any StoreDatabase, runID: String, owner: RunOwner, at date: Date) throws
        -> InterruptedRun?
    {
        let current = try db.first(
            """
            SELECT pipeline, updated_at, started_at, host_name, remote_run_folder FROM runs
            WHERE id = ? AND status = ? AND owner_host = ? AND owner_pid = ? AND owner_start \(db.dialect.isSame) ?
            """, [runID, RunStatus.running.rawValue, owner.hostname, owner.pid, owner.processStart]
        ) { row in
            (
                pipeline: row.text(0) ?? "", lastActivity: row.text(1) ?? "", startedAt: row.text(2) ?? "",
                hostName: row.text(3), remoteRunFolder: row.text(4)
            )
        }
        guard let current else { return nil }
        let found = StoreTimestamp.format(date)
        let lastActivity = try self.date(current.lastActivity, "the last write to run \(runID)")
        let started = try self.date(current.startedAt, "the start of run \(runID)")
        let coordinator = "the coordinator (\(owner.description)) stopped"
        let when = "last activity \(current.lastActivity), found at \(found)"
        let problem = "\(coordinator) while the run was running (\(when)); the run is interrupted"

        let open = try db.query(
            """
            SELECT id, name, \(db.dialect.integer("started_at IS NOT NULL")) FROM layers WHERE run_id = ? AND outcome IS NULL
            ORDER BY position
            """,
            [runID]
        ) { row in (id: row.int64(0) ?? 0, name: row.text(1) ?? "", started: row.int64(2) == 1) }
        for layer in open {
            let evidence =
                layer.started
                ? "interrupted: \(coordinator) while this layer was running (\(when))"
                : "not run: \(coordinator) before this layer began (\(when))"
            try db.execute(
                "UPDATE layers SET outcome = ?, evidence = ?, finished_at = ? WHERE id = ?",
                [
                    LayerOutcome.cancelled.rawValue, try StoreJSON.encode([evidence]),
                    layer.started ? current.lastActivity : nil, layer.id,
                ])
            try db.execute(
                """
                UPDATE attempts SET outcome = ?, evidence = \(db.dialect.appendingParameterToJSONArray("evidence")),
                    finished_at = ?, duration_seconds = \(db.dialect.secondsFromColumnToParameter("started_at"))
                WHERE layer_id = ? AND outcome IS NULL
                """,
                [LayerOutcome.cancelled.rawValue, evidence, current.lastActivity, current.lastActivity, layer.id])
        }
        try db.execute(
            """
            UPDATE runs SET status = ?, interrupted_at = ?, finished_at = coalesce(finished_at, ?),
                duration_seconds = coalesce(duration_seconds, ?), problem = coalesce(problem, ?), updated_at = ?
            WHERE id = ?
            """,
            [
                RunStatus.interrupted.rawValue, found, current.lastActivity,
                max(0, lastActivity.timeIntervalSince(started)), problem, found, runID,
            ])
        let cancelled = open.map(\.name)
        // Nobody else can tell a follower of this run's log what happened to it.
        let payload = try StoreJSON.encode(
            InterruptionPayload(owner: owner, lastActivity: current.lastActivity, cancelledLayers: cancelled))
        try db.execute(
            "INSERT INTO events (run_id, layer, type, payload, at) VALUES (?, NULL, 'run-interrupted', ?, ?)",
            [runID, payload, found])
        return InterruptedRun(
            runID: runID, pipeline: current.pipeline, owner: owner, lastActivity: lastActivity,
            cancelledLayers: cancelled, hostName: current.hostName, remoteRunFolder: current.remoteRunFolder,
            artifacts: try artifacts(db, "run_id = ?", [runID]))
    }

    public func requestCancellation(runID: String, reason: String, requestedBy: String, at date: Date) throws
        -> CancellationOutcome
    {
        try write { db in
            let status = try runStatus(db, runID)
            guard status == .running || status == .queued else { return .notInProgress(status) }
            if let existing = try cancellation(db, runID) { return .alreadyRequested(existing) }
            try db.execute(
                """
                UPDATE runs SET cancel_requested_at = ?, cancel_requested_by = ?, cancel_reason = ?, updated_at = ?
                WHERE id = ?
                """, [StoreTimestamp.format(date), requestedBy, reason, now(), runID])
            return .requested
        }
    }

    public func cancellationRequest(runID: String) throws -> CancellationRequest? {
        try read { db in
            _ = try runStatus(db, runID)
            return try cancellation(db, runID)
        }
    }

    private func cancellation(_ db: any StoreDatabase, _ runID: String) throws -> CancellationRequest? {
        try db.first(
            """
            SELECT cancel_reason, cancel_requested_by, cancel_requested_at FROM runs
            WHERE id = ? AND cancel_requested_at IS NOT NULL
            """, [runID]
        ) { row in
            CancellationRequest(
                reason: row.text(0) ?? "", requestedBy: row.text(1) ?? "",
                at: try date(row.text(2), "the cancellation time of run \(runID)"))
        }
    }

    public func pendingRemoteCleanups() throws -> [RemoteCleanup] {
        try read { db in
            try db.query(
                """
                SELECT id, host_name, remote_run_folder, status FROM runs
                WHERE remote_run_folder IS NOT NULL AND remote_cleaned_at IS NULL AND status NOT IN (?, ?)
                ORDER BY started_at, id
                """, [RunStatus.queued.rawValue, RunStatus.running.rawValue]
            ) { row in
                let runID = row.text(0) ?? ""
                return RemoteCleanup(
                    runID: runID, hostName: row.text(1), remoteRunFolder: row.text(2) ?? "",
                    status: try decode(RunStatus.self, row.text(3), "the status of run \(runID)"))
            }
        }
    }

    public func markRemoteFolderCleaned(runID: String, at date: Date) throws {
        try write { db in
            _ = try runStatus(db, runID)
            try db.execute(
                "UPDATE runs SET remote_cleaned_at = coalesce(remote_cleaned_at, ?) WHERE id = ?",
                [StoreTimestamp.format(date), runID])
        }
    }
}

/// The payload of a `run-interrupted` event.
private struct InterruptionPayload: Encodable {
    var owner: RunOwner
    var lastActivity: String
    var cancelledLayers: [String]
}
