import Foundation

/// The simulators of one host that a run's layers share out while several run at once: each running layer holds
/// one that no other running layer of the run holds.
///
/// Two test runs on one simulator would install over each other's app and test runner, so a simulator is never
/// shared; a layer that finds every simulator taken waits for one (the `LayerSchedule` bounds layers that need a
/// simulator by `fitting.count`, so that wait is rare). Other `pipe` processes are kept off by the store's leases.
final class SimulatorPool: @unchecked Sendable {
    /// The simulators the run may use here, best first: the first choice, then those of the same runtime that the
    /// pipeline's criteria accept.
    let fitting: [Simulator]
    private let condition = NSCondition()
    /// Layer name → the UDID it holds.
    private var held: [String: String] = [:]

    init(fitting: [Simulator]) {
        self.fitting = fitting
    }

    /// The simulators `criteria` accept on a host, best first: `first` (the engine's choice), then every other one
    /// `inspector` would choose, of `first`'s runtime. Layers running at once thus test on the same OS version a
    /// one-at-a-time run would have used; an exact UDID or a simulator created for the run is the only one.
    static func fitting(
        first: Simulator, criteria: SimulatorCriteria, among simulators: [Simulator], inspector: HostInspector,
        exact: Bool
    ) -> [Simulator] {
        guard !exact, criteria.udid == nil else { return [first] }
        var result = [first]
        var excluded: Set<String> = [first.udid]
        while excluded.count < simulators.count,
            let next = try? inspector.choose(criteria, among: simulators, excluding: excluded, udidSource: "the pool")
        {
            excluded.insert(next.simulator.udid)
            if next.simulator.runtimeIdentifier == first.runtimeIdentifier { result.append(next.simulator) }
        }
        return result
    }

    /// Takes the best simulator no other layer holds for `layer`, waiting while every one is held; `nil` when the
    /// run is cancelled meanwhile (or nothing fits at all).
    func acquire(for layer: String, cancellation: CancellationToken) -> Simulator? {
        condition.lock()
        defer { condition.unlock() }
        while !cancellation.isCancelled, !fitting.isEmpty {
            if let free = firstFree(for: layer, avoiding: []) {
                held[layer] = free.udid
                return free
            }
            // Woken by a release; the timeout only lets a cancellation end the wait.
            _ = condition.wait(until: Date().addingTimeInterval(0.2))
        }
        return nil
    }

    /// A free simulator not in `avoiding`, taken in place of the one `layer` holds; `nil` (keeping the one held)
    /// when there is none right now. For a retry that should run elsewhere but need not wait for it.
    func exchange(for layer: String, avoiding: Set<String>) -> Simulator? {
        condition.lock()
        defer { condition.unlock() }
        guard let free = firstFree(for: layer, avoiding: avoiding) else { return nil }
        held[layer] = free.udid
        condition.broadcast()
        return free
    }

    /// Takes `udid` for `layer` in place of what it holds, unless another layer holds it (then false, nothing
    /// changed): a simulator found outside the pool (the store's lease gave another one, a retry chose one) is
    /// checked and taken in one step, so two layers never take the same one.
    func reserve(_ udid: String, for layer: String) -> Bool {
        condition.lock()
        defer { condition.unlock() }
        let wanted = udid.uppercased()
        guard !held.contains(where: { $0.key != layer && $0.value.uppercased() == wanted }) else { return false }
        held[layer] = udid
        condition.broadcast()
        return true
    }

    /// Gives back what `layer` holds, waking a layer that waits.
    func release(for layer: String) {
        condition.lock()
        defer { condition.unlock() }
        held[layer] = nil
        condition.broadcast()
    }

    /// The UDIDs held by layers other than `layer`.
    func held(byOthersThan layer: String) -> Set<String> {
        condition.lock()
        defer { condition.unlock() }
        return Set(held.filter { $0.key != layer }.values.map { $0.uppercased() })
    }

    private func firstFree(for layer: String, avoiding: Set<String>) -> Simulator? {
        let taken = Set(held.filter { $0.key != layer }.values.map { $0.uppercased() })
        let avoided = Set(avoiding.map { $0.uppercased() })
        return fitting.first { !taken.contains($0.udid.uppercased()) && !avoided.contains($0.udid.uppercased()) }
    }
}
