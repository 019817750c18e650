/// Chooses which waiting runs start now, without side effects: in queue order, within the overall and
/// per-pipeline limits, and only where a host the pipeline may use has a free slot.
///
/// Free slots are counted per host (capacity minus the slots the run store's leases hold, minus the runs this
/// controller started that have not leased yet); each start takes one from the matching host with the most free
/// slots, so runs of pipelines that share hosts are counted against the same slots. The engine leases for real
/// when the run starts; this plan only keeps the controller from starting runs that would wait for a host.
public struct DispatchPlanner: Sendable {
    /// A run waiting in the queue.
    public struct Waiting: Sendable, Equatable {
        public var runID: String
        public var pipeline: String

        public init(runID: String, pipeline: String) {
            self.runID = runID
            self.pipeline = pipeline
        }
    }

    /// A run to start now, and the host slot it is counted against.
    public struct Start: Sendable, Equatable {
        public var runID: String
        public var pipeline: String
        public var host: String
    }

    /// Why a waiting run does not start now (for the status and the log).
    public enum Hold: Sendable, Equatable {
        case overallLimit(Int)
        case pipelineLimit(pipeline: String, limit: Int)
        case noFreeHost(pipeline: String)
    }

    public var limits: ControllerLimits

    public init(limits: ControllerLimits) { self.limits = limits }

    /// - Parameters:
    ///   - waiting: the queue, in order.
    ///   - running: this controller's runs in progress, by pipeline.
    ///   - freeSlots: free slots of each usable host now.
    ///   - hostsOfPipeline: the hosts each pipeline may use (its host selection).
    public func plan(
        waiting: [Waiting], running: [String: Int], freeSlots: [String: Int], hostsOfPipeline: [String: [String]]
    ) -> (starts: [Start], holds: [String: Hold]) {
        var running = running
        var free = freeSlots
        var total = running.values.reduce(0, +)
        var starts: [Start] = []
        var holds: [String: Hold] = [:]
        // Pipelines none of whose hosts has a free slot left: slots are only taken during a plan, so their later runs
        // are held without looking at every host again (a long queue behind busy hosts costs one look per pipeline).
        var withoutFreeHost: Set<String> = []
        for item in waiting {
            if let overall = limits.runs, total >= overall {
                holds[item.runID] = .overallLimit(overall)
                continue
            }
            if let limit = limits.limit(forPipeline: item.pipeline), running[item.pipeline, default: 0] >= limit {
                holds[item.runID] = .pipelineLimit(pipeline: item.pipeline, limit: limit)
                continue
            }
            if withoutFreeHost.contains(item.pipeline) {
                holds[item.runID] = .noFreeHost(pipeline: item.pipeline)
                continue
            }
            let hosts = hostsOfPipeline[item.pipeline] ?? []
            // The host with the most free slots; on a tie, the first in the pipeline's order.
            var best: String?
            for host in hosts where free[host, default: 0] > free[best ?? "", default: 0] { best = host }
            guard let host = best, free[host, default: 0] > 0 else {
                withoutFreeHost.insert(item.pipeline)
                holds[item.runID] = .noFreeHost(pipeline: item.pipeline)
                continue
            }
            free[host, default: 0] -= 1
            running[item.pipeline, default: 0] += 1
            total += 1
            starts.append(Start(runID: item.runID, pipeline: item.pipeline, host: host))
        }
        return (starts, holds)
    }
}
