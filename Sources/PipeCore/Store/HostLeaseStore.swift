import Foundation

/// Who uses which host slot and which simulator, across every `pipe` process of a coordinator, and how the hosts'
/// health checks went.
///
/// The engine leases a slot of a host before it uploads anything there (never more runs on a host than its
/// `capacity`) and a simulator before a layer uses it (never two runs on one simulator at once), and releases both
/// when the run ends. Leases live in the run store, not in memory, so separate processes see each other's. A lease
/// whose owner process died (`RunOwner.liveness()` says `.dead`), or whose run has ended, is recovered by the next
/// lease request on the same host, or by `recoverLeases`. Every call is synchronous and durable when it returns,
/// like `RunStore`'s, and each lease request is one transaction: two processes asking for the last slot at once get
/// one answer each, and only one gets the slot.
///
/// Health: `pipe hosts check` records every check; a host whose latest check failed is out of rotation
/// (`HostHealth.isInRotation`) until a check passes again. `HostPoolChoice` ranks hosts with these records.
public protocol HostLeaseStore: AnyObject {
    // MARK: Leases

    /// Takes one of the `capacity` slots of `host` for `runID`, unless live leases hold them all.
    ///
    /// Leases of `host` whose owner `isOwnerAlive` judges `.dead`, or whose run has ended, are recovered first. A
    /// run that already holds a slot on `host` gets that same lease back.
    func leaseHostSlot(
        host: String, capacity: Int, runID: String, owner: RunOwner, at date: Date,
        isOwnerAlive: (RunOwner) -> RunOwner.Liveness
    ) throws -> HostLeaseOutcome

    /// Takes simulator `udid` of `host` for `runID`, unless another run holds it. Dead owners' leases are recovered
    /// first, as for slots. The run that already holds it gets that same lease back (with `layer` updated).
    func leaseSimulator(
        host: String, udid: String, runID: String, layer: String?, owner: RunOwner, at date: Date,
        isOwnerAlive: (RunOwner) -> RunOwner.Liveness
    ) throws -> HostLeaseOutcome

    /// Takes the first of `caches` (the names of one identity's build caches on `host`, in order) that no other run
    /// holds, for `runID`; none when every one is held. Dead owners' leases are recovered first, as for slots. A
    /// run that already holds one of them gets that same lease back.
    func leaseBuildCache(
        host: String, caches: [String], runID: String, owner: RunOwner, at date: Date,
        isOwnerAlive: (RunOwner) -> RunOwner.Liveness
    ) throws -> HostLeaseOutcome

    /// Gives a lease back; `false` when it was already released or recovered.
    @discardableResult
    func releaseLease(id: Int64) throws -> Bool

    /// Gives back every lease of a run (when it ends, however it ends); returns what was released.
    @discardableResult
    func releaseLeases(runID: String) throws -> [HostLease]

    /// The leases held now, on `host` or on every host, oldest first.
    func activeLeases(host: String?) throws -> [HostLease]

    /// Removes, on every host, the leases whose owner is dead or whose run has ended; returns them.
    func recoverLeases(isOwnerAlive: (RunOwner) -> RunOwner.Liveness) throws -> [HostLease]

    // MARK: Health

    /// Records one health check of a host (the store keeps the latest 100 of each host).
    func recordHealth(_ record: HostHealthRecord) throws

    /// What the checks say about `hosts` (every host ever checked when `nil`); hosts never checked are left out.
    func hostHealth(_ hosts: [String]?) throws -> [HostHealth]
}

extension HostLeaseStore {
    /// `leaseHostSlot` now, judging owners with `RunOwner.liveness()`.
    public func leaseHostSlot(host: String, capacity: Int, runID: String, owner: RunOwner = .current())
        throws -> HostLeaseOutcome
    {
        try leaseHostSlot(
            host: host, capacity: capacity, runID: runID, owner: owner, at: Date(), isOwnerAlive: { $0.liveness() })
    }

    /// `leaseSimulator` now, judging owners with `RunOwner.liveness()`.
    public func leaseSimulator(
        host: String, udid: String, runID: String, layer: String?, owner: RunOwner = .current()
    ) throws -> HostLeaseOutcome {
        try leaseSimulator(
            host: host, udid: udid, runID: runID, layer: layer, owner: owner, at: Date(),
            isOwnerAlive: { $0.liveness() })
    }

    /// `leaseBuildCache` now, judging owners with `RunOwner.liveness()`.
    public func leaseBuildCache(host: String, caches: [String], runID: String, owner: RunOwner = .current())
        throws -> HostLeaseOutcome
    {
        try leaseBuildCache(
            host: host, caches: caches, runID: runID, owner: owner, at: Date(), isOwnerAlive: { $0.liveness() })
    }

    /// `recoverLeases`, judging owners with `RunOwner.liveness()`.
    @discardableResult
    public func recoverLeases() throws -> [HostLease] {
        try recoverLeases { $0.liveness() }
    }

    /// Ranks `hosts` with what the store knows now (`HostPoolChoice`): slot leases of live runs, health checks.
    /// Dead owners' leases are recovered first, so they do not count as busy.
    public func poolChoice(for hosts: [HostConfig]) throws -> HostPoolChoice {
        try recoverLeases()
        let leases = try activeLeases(host: nil).filter { $0.kind == .hostSlot }
        let health = try hostHealth(hosts.map(\.name))
        return HostPoolChoice.rank(
            hosts.map { host in
                HostPoolChoice.Candidate(
                    host: host, leasedSlots: leases.filter { $0.host == host.name }.count,
                    health: health.first { $0.host == host.name })
            })
    }

    /// Leases a slot on the best of `hosts` (the pipeline's matching hosts, in its order) that has one, trying them
    /// in `HostPoolChoice` order: another process may take the last slot of a host between the ranking and the
    /// request, and then the next host is asked. `excluding` names hosts this run already failed on.
    public func leaseBestHost(
        among hosts: [HostConfig], runID: String, owner: RunOwner = .current(), excluding: Set<String> = []
    ) throws -> HostPoolLease {
        let choice = try poolChoice(for: hosts.filter { !excluding.contains($0.name) })
        for ranked in choice.ranked {
            let outcome = try leaseHostSlot(
                host: ranked.host.name, capacity: ranked.host.capacity, runID: runID, owner: owner)
            if let lease = outcome.lease { return .leased(host: ranked.host, lease: lease, reason: ranked.reason) }
        }
        if !choice.ranked.isEmpty {
            // Every ranked host filled up meanwhile: rank again, so the explanation names the new holders.
            let now = try poolChoice(for: hosts.filter { !excluding.contains($0.name) })
            return .unavailable(explanation: now.explanation ?? "every matching host filled up", choice: now)
        }
        let left = hosts.filter { !excluding.contains($0.name) }
        if left.isEmpty && !excluding.isEmpty {
            let tried = excluding.sorted().joined(separator: ", ")
            return .unavailable(explanation: "every matching host was tried and failed: \(tried)", choice: choice)
        }
        var explanation = choice.explanation ?? "no host matches"
        if !excluding.isEmpty {
            explanation += " (already tried and failed: \(excluding.sorted().joined(separator: ", ")))"
        }
        return .unavailable(explanation: explanation, choice: choice)
    }
}
