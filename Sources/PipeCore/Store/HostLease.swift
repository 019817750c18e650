import Foundation

/// A claim, held in the run store, on a slot of a host or on one simulator of a host, by one run.
///
/// Leases are what keeps two `pipe` processes of one coordinator from putting more runs on a host than its
/// `capacity`, or two runs on one simulator at once. They belong to a process (`owner`): when it dies, the next
/// process that leases on the same host recovers them.
public struct HostLease: Sendable, Equatable, Codable {
    /// What a lease holds.
    public enum Kind: String, Sendable, Codable, CaseIterable {
        /// One of the host's `capacity` slots: a run on the host.
        case hostSlot = "host-slot"
        /// One simulator (by UDID) of the host: a run uses it, nobody else may.
        case simulator
        /// One build cache of the host (by name, `BuildCacheIdentity.cacheNames`): a run builds in its tree,
        /// nobody else may.
        case buildCache = "build-cache"
    }

    /// The store's id of the lease (what `releaseLease` takes).
    public var id: Int64
    public var kind: Kind
    /// The host's name in the hosts file.
    public var host: String
    /// The simulator's UDID, for `.simulator` leases.
    public var simulatorUDID: String?
    /// The build cache's name, for `.buildCache` leases.
    public var buildCache: String?
    public var runID: String
    /// The layer that asked for a simulator lease, when one did (for messages).
    public var layer: String?
    /// The process holding the lease.
    public var owner: RunOwner
    public var acquiredAt: Date

    public init(
        id: Int64, kind: Kind, host: String, simulatorUDID: String? = nil, buildCache: String? = nil, runID: String,
        layer: String? = nil, owner: RunOwner, acquiredAt: Date
    ) {
        self.id = id
        self.kind = kind
        self.host = host
        self.simulatorUDID = simulatorUDID
        self.buildCache = buildCache
        self.runID = runID
        self.layer = layer
        self.owner = owner
        self.acquiredAt = acquiredAt
    }

    /// `run 20261129-140312-7f3a (pid 4242 on ci-1)`, for messages about who holds what.
    public var holderDescription: String {
        "run \(runID)" + (layer.map { ", layer \($0)" } ?? "") + " (\(owner.description))"
    }
}
