import Foundation

/// What asking for a lease gave.
public struct HostLeaseOutcome: Sendable, Equatable {
    /// The lease, when it was granted (or the run already held it).
    public var lease: HostLease?
    /// When refused: the leases that stand in the way (every slot's holder, or the simulator's holder).
    public var holders: [HostLease]
    /// Leases of dead owners (or of runs that have ended) removed on the way, so their slots could be reused.
    public var recovered: [HostLease]

    public init(lease: HostLease?, holders: [HostLease] = [], recovered: [HostLease] = []) {
        self.lease = lease
        self.holders = holders
        self.recovered = recovered
    }

    public var isGranted: Bool { lease != nil }

    /// Why it was refused, naming the holders; `nil` when granted.
    public var refusal: String? {
        guard lease == nil else { return nil }
        let names = holders.map(\.holderDescription)
        return names.isEmpty ? "held by another run" : "held by " + names.joined(separator: "; ")
    }
}
