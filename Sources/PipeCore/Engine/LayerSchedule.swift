/// Decides which layers of a run may start: a layer is ready once every layer it `needs` has ended (whatever its
/// outcome: the engine then skips a layer whose needs did not pass), and ready layers start together up to two
/// bounds — `limit` layers in all, and `simulators` layers that need a simulator (one each, never shared).
///
/// Pure: the engine asks it from one thread and runs what it returns on threads of their own.
public struct LayerSchedule: Sendable, Equatable {
    /// The bound when the pipeline sets none (`concurrency:`): few enough that a host's CPU is not the bottleneck
    /// of every layer at once, enough for a handful of independent layers.
    public static let defaultConcurrency = 4
    /// The largest `concurrency:` a pipeline may ask for.
    public static let maximumConcurrency = 8

    /// One layer as the schedule sees it.
    public struct Layer: Sendable, Equatable {
        public var name: String
        public var needs: [String]
        /// Whether it occupies one of the run's simulators while it runs.
        public var needsSimulator: Bool

        public init(name: String, needs: [String] = [], needsSimulator: Bool = false) {
            self.name = name
            self.needs = needs
            self.needsSimulator = needsSimulator
        }
    }

    /// At most this many layers run at a time.
    public let limit: Int
    /// At most this many layers that need a simulator run at a time; `nil` for no such bound.
    public let simulators: Int?
    /// Not started yet, in dependency order (`LayerOrder`).
    public private(set) var waiting: [Layer]
    /// Started and not ended, in the order they started.
    public private(set) var running: [Layer] = []
    public private(set) var ended: Set<String> = []

    /// - Parameters:
    ///   - layers: in dependency order (`LayerOrder.sorted`), which is also the order ready layers start in.
    ///   - limit: the bound on layers at a time (at least 1).
    ///   - simulators: the run's usable simulators (at least 1 when given).
    public init(_ layers: [Layer], limit: Int, simulators: Int? = nil) {
        waiting = layers
        self.limit = max(1, limit)
        self.simulators = simulators.map { max(1, $0) }
    }

    /// Every layer has ended.
    public var isFinished: Bool { waiting.isEmpty && running.isEmpty }

    /// The layers that may start now, marked running: each waiting layer whose needs have all ended, in order,
    /// while the bounds allow. A layer that needs a simulator while all are taken waits without holding back a
    /// later ready layer that needs none.
    public mutating func startReady() -> [Layer] {
        var started: [Layer] = []
        var index = 0
        while index < waiting.count, running.count < limit {
            let layer = waiting[index]
            if layer.needs.allSatisfy(ended.contains) && hasSimulatorFor(layer) {
                running.append(waiting.remove(at: index))
                started.append(layer)
            } else {
                index += 1
            }
        }
        // A `needs` that can never end (a cycle or an unknown name the spec loader would have refused) must not
        // stall the run: the first waiting layer starts, and the engine records its unmet needs.
        if started.isEmpty, running.isEmpty, !waiting.isEmpty {
            let layer = waiting.removeFirst()
            running.append(layer)
            started.append(layer)
        }
        return started
    }

    /// Records that `name` ended, which may make layers that need it ready.
    public mutating func end(_ name: String) {
        guard let index = running.firstIndex(where: { $0.name == name }) else { return }
        running.remove(at: index)
        ended.insert(name)
    }

    private func hasSimulatorFor(_ layer: Layer) -> Bool {
        guard layer.needsSimulator, let simulators else { return true }
        return running.filter(\.needsSimulator).count < simulators
    }
}
