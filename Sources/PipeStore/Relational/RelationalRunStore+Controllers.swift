import Foundation
import PipeCore

/// The list of controllers and their heartbeats (`ControllerRegistry`), timed by the database's clock.
extension RelationalRunStore {
    public func heartbeat(owner: RunOwner, configPath: String?, role: ControllerMember.Role) throws {
        try write { db in
            let now = db.dialect.nowTimestamp
            _ = try db.execute(
                """
                INSERT INTO controllers (owner_host, owner_pid, owner_start, config_path, started_at, heartbeat_at,
                    role)
                VALUES (?, ?, ?, ?, \(now), \(now), ?)
                ON CONFLICT (owner_host, owner_pid) DO UPDATE SET heartbeat_at = excluded.heartbeat_at,
                    owner_start = excluded.owner_start, config_path = excluded.config_path, role = excluded.role
                """, [owner.hostname, owner.pid, owner.processStart, configPath, role.rawValue])
        }
    }

    public func leave(owner: RunOwner) throws {
        try write { db in
            _ = try db.execute(
                "DELETE FROM controllers WHERE owner_host = ? AND owner_pid = ?", [owner.hostname, owner.pid])
        }
    }

    public func controllers() throws -> [ControllerMember] {
        try read { db in
            try db.query(
                """
                SELECT owner_host, owner_pid, owner_start, config_path, started_at, heartbeat_at,
                    \(db.dialect.secondsSince("heartbeat_at")), role
                FROM controllers ORDER BY started_at, owner_host, owner_pid
                """, []
            ) { row in
                let owner = RunOwner(
                    hostname: row.text(0) ?? "", pid: Int32(truncatingIfNeeded: row.int64(1) ?? 0),
                    processStart: row.text(2))
                return ControllerMember(
                    owner: owner, role: ControllerMember.Role(rawValue: row.text(7) ?? "") ?? .controller,
                    configPath: row.text(3),
                    startedAt: try date(row.text(4), "the start of controller \(owner.description)"),
                    heartbeatAt: try date(row.text(5), "the heartbeat of controller \(owner.description)"),
                    heartbeatAge: max(0, row.double(6) ?? 0))
            }
        }
    }
}
