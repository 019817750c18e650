import Foundation
import PipeCore

/// Host slots, simulators and build caches leased by runs, in the `host_leases` table (schema versions 3 and 9).
///
/// Each request is one `BEGIN IMMEDIATE` transaction, so requests from any number of processes are taken one at a
/// time: counting the slots in use and taking one cannot be split by another process. Unique indexes back the two
/// rules up (one lease per simulator of a host, one per build cache of a host, one slot lease per run and host), so even a bug in this file could
/// not put two runs on one simulator. Released leases are deleted: the run's events tell its history.
extension SQLiteRunStore: HostLeaseStore {
    public func leaseHostSlot(
        host: String, capacity: Int, runID: String, owner: RunOwner, at date: Date,
        isOwnerAlive: (RunOwner) -> RunOwner.Liveness
    ) throws -> HostLeaseOutcome {
        try requireName(host, "host name")
        try requireName(runID, "run id")
        guard capacity >= 1 else {
            throw StoreError.invalidInput(
                "host \(host) has capacity \(capacity); a host takes at least 1 run (`capacity` in the hosts file)")
        }
        let dead = try deadLeaseIDs(host: host, isOwnerAlive: isOwnerAlive)
        return try write { db in
            let recovered = try removeStaleLeases(db, host: host, deadIDs: dead)
            let slots = try leases(db, where: "kind = ? AND host = ?", [HostLease.Kind.hostSlot.rawValue, host])
            if let held = slots.first(where: { $0.runID == runID }) {
                return HostLeaseOutcome(lease: held, recovered: recovered)
            }
            guard slots.count < capacity else {
                return HostLeaseOutcome(lease: nil, holders: slots, recovered: recovered)
            }
            let lease = try insertLease(
                db, kind: .hostSlot, host: host, udid: nil, runID: runID, layer: nil, owner: owner, at: date)
            return HostLeaseOutcome(lease: lease, recovered: recovered)
        }
    }

    public func leaseSimulator(
        host: String, udid: String, runID: String, layer: String?, owner: RunOwner, at date: Date,
        isOwnerAlive: (RunOwner) -> RunOwner.Liveness
    ) throws -> HostLeaseOutcome {
        try requireName(host, "host name")
        try requireName(udid, "simulator UDID")
        try requireName(runID, "run id")
        // simctl prints UDIDs in upper case, xcodebuild accepts any case: one spelling, so one lease.
        let udid = udid.uppercased()
        let dead = try deadLeaseIDs(host: host, isOwnerAlive: isOwnerAlive)
        return try write { db in
            let recovered = try removeStaleLeases(db, host: host, deadIDs: dead)
            let holders = try leases(
                db, where: "kind = ? AND host = ? AND simulator_udid = ?",
                [HostLease.Kind.simulator.rawValue, host, udid])
            if var held = holders.first {
                guard held.runID == runID else {
                    return HostLeaseOutcome(lease: nil, holders: holders, recovered: recovered)
                }
                try db.execute("UPDATE host_leases SET layer = ? WHERE id = ?", [layer, held.id])
                held.layer = layer
                return HostLeaseOutcome(lease: held, recovered: recovered)
            }
            let lease = try insertLease(
                db, kind: .simulator, host: host, udid: udid, runID: runID, layer: layer, owner: owner, at: date)
            return HostLeaseOutcome(lease: lease, recovered: recovered)
        }
    }

    public func leaseBuildCache(
        host: String, caches: [String], runID: String, owner: RunOwner, at date: Date,
        isOwnerAlive: (RunOwner) -> RunOwner.Liveness
    ) throws -> HostLeaseOutcome {
        try requireName(host, "host name")
        try requireName(runID, "run id")
        guard !caches.isEmpty else {
            throw StoreError.invalidInput("no build cache to lease on host \(host); `build-caches` is at least 1 here")
        }
        for cache in caches { try requireName(cache, "build cache name") }
        let dead = try deadLeaseIDs(host: host, isOwnerAlive: isOwnerAlive)
        return try write { db in
            let recovered = try removeStaleLeases(db, host: host, deadIDs: dead)
            let held = try leases(
                db, where: "kind = ? AND host = ?", [HostLease.Kind.buildCache.rawValue, host]
            ).filter { lease in lease.buildCache.map(caches.contains) ?? false }
            if let own = held.first(where: { $0.runID == runID }) {
                return HostLeaseOutcome(lease: own, recovered: recovered)
            }
            let taken = Set(held.compactMap(\.buildCache))
            guard let free = caches.first(where: { !taken.contains($0) }) else {
                return HostLeaseOutcome(lease: nil, holders: held, recovered: recovered)
            }
            let lease = try insertLease(
                db, kind: .buildCache, host: host, udid: nil, buildCache: free, runID: runID, layer: nil, owner: owner,
                at: date)
            return HostLeaseOutcome(lease: lease, recovered: recovered)
        }
    }

    @discardableResult
    public func releaseLease(id: Int64) throws -> Bool {
        try write { db in try db.execute("DELETE FROM host_leases WHERE id = ?", [id]) > 0 }
    }

    @discardableResult
    public func releaseLeases(runID: String) throws -> [HostLease] {
        try write { db in
            let held = try leases(db, where: "run_id = ?", [runID])
            try db.execute("DELETE FROM host_leases WHERE run_id = ?", [runID])
            return held
        }
    }

    public func activeLeases(host: String?) throws -> [HostLease] {
        try read { db in
            guard let host else { return try leases(db, where: "1", []) }
            return try leases(db, where: "host = ?", [host])
        }
    }

    public func recoverLeases(isOwnerAlive: (RunOwner) -> RunOwner.Liveness) throws -> [HostLease] {
        let dead = try deadLeaseIDs(host: nil, isOwnerAlive: isOwnerAlive)
        return try write { db in try removeStaleLeases(db, host: nil, deadIDs: dead) }
    }

    // MARK: - Steps

    private static let leaseColumns =
        "id, kind, host, simulator_udid, run_id, layer, owner_host, owner_pid, owner_start, acquired_at, build_cache"

    /// The ids of leases (of `host`, or of every host) whose owner is dead. Owners are judged outside any
    /// transaction (`liveness()` reads /proc), each once.
    private func deadLeaseIDs(host: String?, isOwnerAlive: (RunOwner) -> RunOwner.Liveness) throws -> Set<Int64> {
        let held = try read { db in
            try host.map { try leases(db, where: "host = ?", [$0]) } ?? leases(db, where: "1", [])
        }
        var verdicts: [String: RunOwner.Liveness] = [:]
        var dead: Set<Int64> = []
        for lease in held {
            let key = "\(lease.owner.hostname)\u{0}\(lease.owner.pid)\u{0}\(lease.owner.processStart ?? "")"
            let verdict = verdicts[key] ?? isOwnerAlive(lease.owner)
            verdicts[key] = verdict
            if verdict == .dead { dead.insert(lease.id) }
        }
        return dead
    }

    /// Deletes the leases judged dead (ids never come back: AUTOINCREMENT) and those whose run has ended, and
    /// returns them.
    private func removeStaleLeases(_ db: SQLiteDatabase, host: String?, deadIDs: Set<Int64>) throws -> [HostLease] {
        // One primary-key look-up per lease, not a scan of every run ever recorded.
        let ended =
            "EXISTS (SELECT 1 FROM runs WHERE runs.id = host_leases.run_id AND runs.status NOT IN "
            + "('\(RunStatus.queued.rawValue)', '\(RunStatus.running.rawValue)'))"
        let candidates =
            try host.map { try leases(db, where: "host = ? AND \(ended)", [$0]) }
            ?? leases(db, where: ended, [])
        var stale = candidates
        if !deadIDs.isEmpty {
            let known = Set(stale.map(\.id))
            let list = deadIDs.filter { !known.contains($0) }.sorted().map(String.init).joined(separator: ",")
            if !list.isEmpty { stale += try leases(db, where: "id IN (\(list))", []) }
        }
        for lease in stale { try db.execute("DELETE FROM host_leases WHERE id = ?", [lease.id]) }
        return stale.sorted { $0.id < $1.id }
    }

    private func insertLease(
        _ db: SQLiteDatabase, kind: HostLease.Kind, host: String, udid: String?, buildCache: String? = nil,
        runID: String, layer: String?, owner: RunOwner, at date: Date
    ) throws -> HostLease {
        let acquired = StoreTimestamp.format(date)
        try db.execute(
            """
            INSERT INTO host_leases (kind, host, simulator_udid, build_cache, run_id, layer, owner_host, owner_pid,
                owner_start, acquired_at)
            VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
            """,
            [
                kind.rawValue, host, udid, buildCache, runID, layer, owner.hostname, owner.pid, owner.processStart,
                acquired,
            ])
        return HostLease(
            id: db.lastInsertRowID, kind: kind, host: host, simulatorUDID: udid, buildCache: buildCache, runID: runID,
            layer: layer, owner: owner, acquiredAt: try self.date(acquired, "a lease's time"))
    }

    /// Leases matching `condition` (SQL over the table's columns), oldest first.
    private func leases(_ db: SQLiteDatabase, where condition: String, _ values: [any SQLiteBindable]) throws
        -> [HostLease]
    {
        try db.query(
            "SELECT \(Self.leaseColumns) FROM host_leases WHERE \(condition) ORDER BY id", values
        ) { row in
            let id = row.int64(0) ?? 0
            return HostLease(
                id: id, kind: try decode(HostLease.Kind.self, row.text(1), "the kind of lease \(id)"),
                host: row.text(2) ?? "", simulatorUDID: row.text(3), buildCache: row.text(10), runID: row.text(4) ?? "",
                layer: row.text(5),
                owner: RunOwner(
                    hostname: row.text(6) ?? "", pid: Int32(truncatingIfNeeded: row.int64(7) ?? 0),
                    processStart: row.text(8)),
                acquiredAt: try date(row.text(9), "the time lease \(id) was taken"))
        }
    }

    func requireName(_ value: String, _ what: String) throws {
        guard !value.trimmingCharacters(in: .whitespaces).isEmpty else {
            throw StoreError.invalidInput("the \(what) is empty; leases and health records need one")
        }
    }
}
