import Foundation
import PipeCore

/// The controller's own records (schema version 4): the lock that admits one controller per store, each
/// schedule's last slot, each watch's last seen heads.
extension RelationalRunStore {
    public func acquireControllerLock(
        owner: RunOwner, configPath: String?, at date: Date, isOwnerAlive: (RunOwner) -> RunOwner.Liveness
    ) throws -> ControllerLockOutcome {
        // Liveness reads /proc: judged outside the transaction, then the holder is checked unchanged inside it.
        let current = try controllerLock()
        let liveness = current.map { $0.owner == owner ? .alive : isOwnerAlive($0.owner) }
        return try write { db in
            let now = try lockRow(db)
            if let now, now.owner != owner {
                guard now == current, liveness == .dead else {
                    return .held(by: now, liveness: now == current ? liveness ?? .unknown : .alive)
                }
            }
            try db.execute(
                """
                INSERT INTO controller_lock (id, owner_host, owner_pid, owner_start, acquired_at, config_path)
                VALUES (1, ?, ?, ?, ?, ?)
                ON CONFLICT (id) DO UPDATE SET owner_host = excluded.owner_host, owner_pid = excluded.owner_pid,
                    owner_start = excluded.owner_start, acquired_at = excluded.acquired_at,
                    config_path = excluded.config_path
                """,
                [owner.hostname, owner.pid, owner.processStart, StoreTimestamp.format(date), configPath])
            return .acquired(recoveredFrom: now?.owner == owner ? nil : now)
        }
    }

    public func releaseControllerLock(owner: RunOwner) throws -> Bool {
        try write { db in
            try db.execute(
                "DELETE FROM controller_lock WHERE id = 1 AND owner_host = ? AND owner_pid = ? AND owner_start \(db.dialect.isSame) ?",
                [owner.hostname, owner.pid, owner.processStart]) == 1
        }
    }

    public func controllerLock() throws -> ControllerLock? {
        try read { db in try lockRow(db) }
    }

    private func lockRow(_ db: any StoreDatabase) throws -> ControllerLock? {
        try db.first(
            "SELECT owner_host, owner_pid, owner_start, acquired_at, config_path FROM controller_lock WHERE id = 1"
        ) { row in
            ControllerLock(
                owner: RunOwner(
                    hostname: row.text(0) ?? "", pid: Int32(truncatingIfNeeded: row.int64(1) ?? 0),
                    processStart: row.text(2)),
                acquiredAt: try date(row.text(3), "the time the controller lock was taken"), configPath: row.text(4))
        }
    }

    // MARK: Schedules

    public func scheduleStates() throws -> [ScheduleState] {
        try read { db in
            try db.query("SELECT name, baseline, last_slot, last_run_id FROM schedule_state ORDER BY name") {
                try scheduleState(from: $0)
            }
        }
    }

    public func scheduleState(name: String, baseline: Date) throws -> ScheduleState {
        try write { db in
            try db.execute(
                "INSERT INTO schedule_state (name, baseline, updated_at) VALUES (?, ?, ?) ON CONFLICT (name) DO NOTHING",
                [name, StoreTimestamp.format(baseline), now()])
            return try scheduleRow(db, name)
        }
    }

    public func recordScheduleSlot(name: String, slot: Date, enqueue request: QueueRequest?, at date: Date) throws
        -> ScheduleState?
    {
        try write { db in
            let slotText = StoreTimestamp.format(slot)
            try db.execute(
                "INSERT INTO schedule_state (name, baseline, updated_at) VALUES (?, ?, ?) ON CONFLICT (name) DO NOTHING",
                [name, StoreTimestamp.format(date), now()])
            let changed = try db.execute(
                """
                UPDATE schedule_state SET last_slot = ?, last_run_id = NULL, updated_at = ?
                WHERE name = ? AND (last_slot IS NULL OR last_slot < ?)
                """, [slotText, now(), name, slotText])
            guard changed == 1 else { return nil }
            if let request {
                switch try insertQueued(db, request, at: date) {
                case .queued(let queued):
                    try db.execute(
                        "UPDATE schedule_state SET last_run_id = ? WHERE name = ?", [queued.runID, name])
                case .alreadyTriggered(_, let runID):
                    try db.execute("UPDATE schedule_state SET last_run_id = ? WHERE name = ?", [runID, name])
                }
            }
            return try scheduleRow(db, name)
        }
    }

    private func scheduleRow(_ db: any StoreDatabase, _ name: String) throws -> ScheduleState {
        guard
            let state = try db.first(
                "SELECT name, baseline, last_slot, last_run_id FROM schedule_state WHERE name = ?", [name],
                { try scheduleState(from: $0) })
        else { throw StoreError.invalidInput("the schedule '\(name)' could not be recorded") }
        return state
    }

    private func scheduleState(from row: any StoreRow) throws -> ScheduleState {
        let name = row.text(0) ?? ""
        return ScheduleState(
            name: name, baseline: try date(row.text(1), "the baseline of schedule \(name)"),
            lastSlot: try optionalDate(row.text(2), "the last slot of schedule \(name)"), lastRunID: row.text(3))
    }

    // MARK: Watches

    public func watchHeads() throws -> [WatchHead] {
        try read { db in
            try db.query("SELECT watch, branch, sha, seen_at FROM watch_heads ORDER BY watch, branch") { row in
                WatchHead(
                    watch: row.text(0) ?? "", branch: row.text(1) ?? "", sha: row.text(2) ?? "",
                    seenAt: try date(row.text(3), "when watch \(row.text(0) ?? "") last looked"))
            }
        }
    }

    public func recordWatchHead(_ head: WatchHead) throws {
        try write { db in
            _ = try db.execute(
                """
                INSERT INTO watch_heads (watch, branch, sha, seen_at) VALUES (?, ?, ?, ?)
                ON CONFLICT (watch, branch) DO UPDATE SET sha = excluded.sha, seen_at = excluded.seen_at
                """, [head.watch, head.branch, head.sha, StoreTimestamp.format(head.seenAt)])
        }
    }
}
