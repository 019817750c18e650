import Foundation

/// Running a run's layers: each as soon as the layers it needs have ended, those ready at once each on a thread
/// of its own, within the bounds of a `LayerSchedule`.
extension RunEngine {
    /// Runs every layer of the run and returns once all have ended. A layer that throws (its record could not be
    /// written) stops new layers from starting; the running ones end first, then its error is thrown, so the run's
    /// clean-up never races a layer still using the host.
    func runLayers(context: LayerRunContext, state: RunState) throws {
        let record = state.snapshot
        let needsSimulator = { (layer: RunRecord.LayerRecord) -> Bool in
            // A layer carried over or left out by `--only` ends at once: it takes no simulator.
            guard context.request.carriedOver[layer.name] == nil,
                context.request.onlyLayers?.contains(layer.name) ?? true
            else { return false }
            return self.plugins.plugin(kind: layer.plugin)?.needsSimulator ?? false
        }
        let layers = record.layers.map {
            LayerSchedule.Layer(name: $0.name, needs: $0.needs, needsSimulator: needsSimulator($0))
        }
        let simulators = context.place.pool.fitting.count
        var schedule = LayerSchedule(
            layers, limit: context.request.pipeline.concurrency ?? LayerSchedule.defaultConcurrency,
            simulators: simulators > 0 ? simulators : nil)
        announce(schedule, hostName: context.place.hostName, journal: state.journal)

        let indexes = Dictionary(record.layers.indices.map { (record.layers[$0].name, $0) }) { first, _ in first }
        let threads = LayerThreads()
        while true {
            for name in threads.takeEnded() { schedule.end(name) }
            if threads.failure == nil {
                for layer in schedule.startReady() {
                    guard let index = indexes[layer.name] else {
                        schedule.end(layer.name)  // not in the record (cannot happen): never leave it running
                        continue
                    }
                    threads.start(layer.name) { try self.runLayer(at: index, context: context, state: state) }
                }
            }
            if schedule.running.isEmpty && (schedule.isFinished || threads.failure != nil) { break }
            threads.waitForAnEnd()
        }
        if let failure = threads.failure { throw failure }
    }

    /// Says how many layers may run at once, when that is more than one and the run has more than one layer.
    private func announce(_ schedule: LayerSchedule, hostName: String, journal: RunJournal) {
        let count = schedule.waiting.count
        guard count > 1, schedule.limit > 1 else { return }
        var text = "layers run as soon as the layers they need have ended, up to \(schedule.limit) at a time"
        if let simulators = schedule.simulators, schedule.waiting.contains(where: \.needsSimulator) {
            text +=
                simulators == 1
                ? "; those that need a simulator one at a time (one fits on \(hostName))"
                : "; up to \(simulators) that need a simulator (one each, of \(simulators) fitting on \(hostName))"
        }
        journal.emit(.note(text))
    }
}

/// The threads of a run's running layers, and the names of those that ended since the scheduler last looked.
private final class LayerThreads: @unchecked Sendable {
    private let condition = NSCondition()
    private var ended: [String] = []
    private var firstFailure: Error?

    /// The first error a layer threw.
    var failure: Error? {
        condition.lock()
        defer { condition.unlock() }
        return firstFailure
    }

    func start(_ name: String, _ body: @escaping () throws -> Void) {
        let thread = Thread { [self] in
            var failure: Error?
            do { try body() } catch { failure = error }
            condition.lock()
            ended.append(name)
            if firstFailure == nil { firstFailure = failure }
            condition.broadcast()
            condition.unlock()
        }
        thread.name = "pipe.layer.\(name)"
        // Plugins parse logs and result bundles on this thread: the main thread's stack size, not a small default.
        thread.stackSize = 8 << 20
        thread.start()
    }

    /// Layers that ended since the last call.
    func takeEnded() -> [String] {
        condition.lock()
        defer { condition.unlock() }
        let names = ended
        ended = []
        return names
    }

    /// Sleeps until a layer ends (returning at once when one ended since the last `takeEnded`).
    func waitForAnEnd() {
        condition.lock()
        defer { condition.unlock() }
        while ended.isEmpty { condition.wait() }
    }
}
