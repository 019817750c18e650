import Foundation

extension RunEngine {
    /// What every layer of one run shares; `place` changes when a lost host is replaced by another of the pool.
    /// Layers read it from their own threads.
    final class LayerRunContext: @unchecked Sendable {
        let request: RunRequest
        /// The hosts the run may use, in the order to try them.
        let candidates: [HostConfig]
        /// The checked-out workspace on the coordinator, to upload to another host.
        let workspace: URL
        /// Work the run's layers share (one build for the layers that test the same scheme).
        let sharedWork = RunSharedWork()
        /// Held while the run moves to another host, so layers that lost the same host move once, together.
        let moving = NSLock()
        private let lock = NSLock()
        private var current: HostPlace
        private var used: [HostPlace]

        init(request: RunRequest, candidates: [HostConfig], workspace: URL, place: HostPlace) {
            self.request = request
            self.candidates = candidates
            self.workspace = workspace
            current = place
            used = [place]
        }

        /// Where layers starting now run.
        var place: HostPlace {
            lock.lock()
            defer { lock.unlock() }
            return current
        }

        /// Every place the run used, for clean-up.
        var places: [HostPlace] {
            lock.lock()
            defer { lock.unlock() }
            return used
        }

        func move(to place: HostPlace) {
            lock.lock()
            defer { lock.unlock() }
            current = place
            used.append(place)
        }
    }
}
