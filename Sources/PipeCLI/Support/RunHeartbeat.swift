import Foundation
import PipeCore

/// A `pipe run` on a store that several controllers serve keeps a heartbeat on the store's list, as a controller
/// does: a controller on another machine cannot see this process's pid, so without it a `pipe run` that died there
/// would hold its run and its host slot for ever. When the heartbeat stops, a controller stops the run's remote
/// work, marks it interrupted and frees its leases.
final class RunHeartbeat: @unchecked Sendable {
    private let registry: ControllerRegistry
    private let owner: RunOwner
    private let interval: Double
    private let fenced: @Sendable (String) -> Void
    private let stopping = DispatchSemaphore(value: 0)
    private let ended = DispatchSemaphore(value: 0)

    /// Starts renewing at once, when `store` keeps a list of live processes; `nil` otherwise (SQLite, where pids
    /// on this one machine decide). `fenced` is called once if the others took this process off the list.
    static func start(
        store: RunStore, owner: RunOwner = .current(), interval: Double = 2,
        fenced: @escaping @Sendable (String) -> Void
    ) -> RunHeartbeat? {
        guard let queue = store as? RunQueue, queue.admitsSeveralControllers,
            let registry = store as? ControllerRegistry
        else { return nil }
        let heartbeat = RunHeartbeat(registry: registry, owner: owner, interval: interval, fenced: fenced)
        // The first beat is written before the run begins, so no controller ever sees the run without its owner.
        try? registry.heartbeat(owner: owner, configPath: nil, role: .run)
        Thread.detachNewThread { heartbeat.renew() }
        return heartbeat
    }

    private init(
        registry: ControllerRegistry, owner: RunOwner, interval: Double, fenced: @escaping @Sendable (String) -> Void
    ) {
        self.registry = registry
        self.owner = owner
        self.interval = interval
        self.fenced = fenced
    }

    /// Stops renewing and takes this process off the list.
    func stop() {
        stopping.signal()
        ended.wait()
        try? registry.leave(owner: owner)
    }

    private func renew() {
        defer { ended.signal() }
        var wasListed = true
        while stopping.wait(timeout: .now() + interval) == .timedOut {
            // A store that is away fails the read; the next beat tries again.
            guard let members = try? registry.controllers() else { continue }
            let listed = members.contains { $0.owner.hostname == owner.hostname && $0.owner.pid == owner.pid }
            if wasListed && !listed {
                fenced(
                    "cancelled: this `pipe run` was taken off the store's list of live processes (its heartbeat "
                        + "went stale, and a controller interrupted its run and stopped its remote work)")
            }
            wasListed = listed
            try? registry.heartbeat(owner: owner, configPath: nil, role: .run)
        }
    }
}
