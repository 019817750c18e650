import Foundation
import PipeBasics

/// Choosing, leasing and connecting to a host, and leasing simulators on it.
extension RunEngine {
    struct Session {
        var host: HostConfig
        var connected: ConnectedHost
    }

    /// Leases a slot on the best matching host (capacity and health respected, across processes), then connects.
    ///
    /// Default policy: an infrastructure failure is retried once, on another host where there is one. A host that
    /// cannot be reached or refuses Pipe is recorded unhealthy and leaves rotation until `pipe hosts check` passes.
    ///
    /// With `announce: false` the connection is neither recorded nor shown: the caller does it with `announceConnection(_:state:)`
    /// (the checkout, running at the same time, comes first in the record). `abandoned` is asked while waiting for a
    /// free slot: the caller no longer wants the connection.
    func connect(
        _ candidates: [HostConfig], state: RunState, announce: Bool = true, abandoned: () -> Bool = { false }
    ) throws -> Session {
        var lastError: RemoteError?
        var failed: Set<String> = []
        for attempt in 1...2 {
            try checkCancelled()
            let host = try leaseHost(
                candidates, excluding: candidates.count > 1 ? failed : [], state: state, abandoned: abandoned)
            do {
                let session = Session(host: host, connected: try connector.connect(host, cancellation: cancellation))
                if announce { try announceConnection(session, state: state) }
                return session
            } catch let error as RemoteError {
                _ = try? leases?.releaseLeases(runID: state.runID)
                try? leases?.recordHealth(
                    HostHealthRecord(
                        host: host.name, checkedAt: clock(), usable: false, problem: error.message,
                        source: "run \(state.runID)"))
                failed.insert(host.name)
                lastError = error
                // A host key or login problem is not transient: the same host would only refuse again.
                let refusal = [.hostKeyUnknown, .hostKeyChanged, .authentication].contains(error.kind)
                if refusal && candidates.count == 1 { throw error }
                if attempt == 1 { state.journal.emit(.warning("\(error.description); retrying once")) }
            }
        }
        throw lastError ?? RemoteError(.unreachable, host: candidates[0].name, "could not connect")
    }

    /// Records the run's host and shows the connection.
    func announceConnection(_ session: Session, state: RunState) throws {
        let (host, connected) = (session.host, session.connected)
        try state.locked {
            state.record.host = .init(
                name: host.name, endpoint: host.endpoint, keyType: connected.keyType,
                fingerprint: connected.fingerprint)
            try state.journal.runChanged(state.record)
        }
        state.journal.emit(
            .hostConnected(
                host: host.name, endpoint: host.endpoint, keyType: connected.keyType,
                fingerprint: connected.fingerprint))
    }

    /// The host to use: without a store, the first candidate not yet failed; with one, a leased slot, waiting
    /// while every matching host is busy.
    func leaseHost(
        _ candidates: [HostConfig], excluding failed: Set<String>, state: RunState, abandoned: () -> Bool = { false }
    ) throws -> HostConfig {
        guard let leases else { return candidates.first { !failed.contains($0.name) } ?? candidates[0] }
        let deadline = clock().addingTimeInterval(leaseWaitSeconds)
        var announced = false
        while true {
            switch try leases.leaseBestHost(among: candidates, runID: state.runID, excluding: failed) {
            case .leased(let host, _, let reason):
                if candidates.count > 1 { state.journal.emit(.note("host \(host.name) chosen: \(reason)")) }
                return host
            case .unavailable(let explanation, let choice):
                let busy = choice.excluded.contains { $0.why == .busy }
                guard busy, clock() < deadline else {
                    throw RemoteError(.unreachable, host: candidates.map(\.name).joined(separator: ", "), explanation)
                }
                if !announced {
                    state.journal.emit(.warning("waiting for a free host slot: \(explanation)"))
                    announced = true
                }
                try pause(seconds: 1)
                if abandoned() { throw CancelledBeforeLayers(reason: "the run ended before a host slot came free") }
            }
        }
    }

    /// A simulator this run may use now: the one wanted when no other run holds it, else the next best one that
    /// is free, waiting while every fitting simulator is busy. Without a store, the one wanted. `tried` holds the
    /// simulators not to fall back to: those an earlier attempt used and those the run's other layers hold.
    func leaseSimulator(
        _ wanted: Simulator, layer: String, place: HostPlace, excluding tried: Set<String>, state: RunState
    ) throws -> Simulator {
        guard let leases else { return wanted }
        let host = place.hostName
        let deadline = clock().addingTimeInterval(leaseWaitSeconds)
        var candidate = wanted
        var announced = false
        // Taken by another layer of this run since `tried` was made: the store grants a simulator to any layer of
        // the run, so the pool decides between them, checking and taking in one step (`reserve`).
        var takenByLayers: Set<String> = []
        while true {
            let reserved = place.pool.reserve(candidate.udid, for: layer)
            let outcome =
                reserved
                ? try leases.leaseSimulator(host: host, udid: candidate.udid, runID: state.runID, layer: layer) : nil
            let refusal = outcome.map { $0.refusal ?? "busy" } ?? "another layer of this run uses it"
            if outcome?.isGranted == true {
                if candidate.udid != wanted.udid {
                    state.journal.emit(
                        .warning("\(wanted.summary) is in use (\(refusal)); using \(candidate.summary)"))
                }
                return candidate
            }
            if !reserved { takenByLayers.insert(candidate.udid) }
            let heldByOthers = Set(
                try leases.activeLeases(host: host).filter { $0.kind == .simulator && $0.runID != state.runID }
                    .compactMap(\.simulatorUDID))
            if place.criteria.udid == nil,
                let next = try? inspector.choose(
                    place.criteria, among: place.simulators,
                    excluding: heldByOthers.union(tried).union(takenByLayers)
                        .union(place.pool.held(byOthersThan: layer)),
                    udidSource: "the pool")
            {
                candidate = next.simulator
                continue
            }
            guard clock() < deadline else {
                throw RemoteError(.unreachable, host: host, "no fitting simulator came free: \(refusal)")
            }
            if !announced {
                state.journal.emit(.warning("waiting for a free simulator: \(refusal)"))
                announced = true
            }
            try pause(seconds: 1)
            candidate = wanted
            takenByLayers = []
        }
    }

    /// Sleeps, waking early (and throwing) when the run is cancelled.
    func pause(seconds: Double) throws {
        waitForRetry(seconds: seconds)
        try checkCancelled()
    }

    /// The connection to the run's host; replaced when a layer lost it and is retried.
    final class HostLink {
        let host: HostConfig
        /// A new connection (a reconnect) is not lost.
        var remote: RemoteHost { didSet { lost = false } }
        /// What every command on this host runs with (`DEVELOPER_DIR`), kept for a new connection.
        let environment: [String: String]
        /// A layer lost this connection (or it stopped answering): it goes back to no one when the run ends.
        var lost = false
        /// The connection as the connector made it, under the `DEVELOPER_DIR` wrapper: what goes back to it.
        var connection: RemoteHost { (remote as? EnvironmentRemoteHost)?.base ?? remote }

        init(host: HostConfig, remote: RemoteHost, environment: [String: String]) {
            self.host = host
            self.remote = remote
            self.environment = environment
        }
    }

    /// The environment every command on `host` gets: `DEVELOPER_DIR` of the Xcode the pipeline's `xcode` label
    /// names, on a host that maps several (`xcodes:` in the hosts file).
    static func hostEnvironment(_ host: HostConfig, selection: HostSelection) -> [String: String] {
        guard let wanted = selection.labels["xcode"], let developerDir = host.xcodes[wanted] else { return [:] }
        return ["DEVELOPER_DIR": developerDir]
    }

    static func prepared(_ remote: RemoteHost, environment: [String: String]) -> RemoteHost {
        environment.isEmpty ? remote : EnvironmentRemoteHost(remote, environment: environment)
    }
}
