import Foundation

/// What `HostLeaseStore.leaseBestHost(among:runID:owner:excluding:)` gave: a slot on the best host that had one, or
/// why no host could take the run.
public enum HostPoolLease: Sendable, Equatable {
    /// A slot of `host` is leased; `reason` says why this host (free slots, last check).
    case leased(host: HostConfig, lease: HostLease, reason: String)
    /// No matching host has a free slot and is in rotation; `explanation` names each host and what to do.
    case unavailable(explanation: String, choice: HostPoolChoice)
}
