import Foundation

extension RunEngine {
    /// Where a run's layers run: the host, the run folder and workspace on it, its simulators and the choice, and
    /// the connections the layers running there use.
    ///
    /// An SSH session belongs to one thread (libssh2 sessions are not thread-safe, and `RemoteHost` promises one
    /// thread at a time), so each layer running at once borrows a connection of its own: `link`, opened when the
    /// place was set up, and extra ones opened on demand (a cold connection to a host on the same network takes tens
    /// of milliseconds — far less than any layer — where sharing one session would need a lock around every
    /// channel read of every layer's streaming command). A connection goes back to the place when its layer ends,
    /// for the next layer; when the run ends, those still healthy go back to the connector (which may keep them warm
    /// for another run, `HostConnector.giveBack`), and the others close.
    final class HostPlace: @unchecked Sendable {
        /// The connection the place was set up over, used for the run's clean-up once every layer ended.
        let link: HostLink
        let remoteRunFolder: String
        let remoteWorkspace: String
        let simulators: [Simulator]
        let criteria: SimulatorCriteria
        let firstChoice: SimulatorChoice?
        /// A simulator Pipe created for the run here (`simulator.create`), deleted when the run ends.
        let createdSimulator: String?
        /// The simulators the layers running at once share out.
        let pool: SimulatorPool
        /// The build cache leased here, whose tree is `remoteWorkspace`.
        let buildCache: BuildCachePlace?
        private let lock = NSLock()
        private var idle: [HostLink]
        private var extra: [HostLink] = []

        init(
            link: HostLink, remoteRunFolder: String, remoteWorkspace: String, simulators: [Simulator],
            criteria: SimulatorCriteria, firstChoice: SimulatorChoice?, createdSimulator: String?,
            pool: SimulatorPool, buildCache: BuildCachePlace? = nil
        ) {
            self.link = link
            self.remoteRunFolder = remoteRunFolder
            self.remoteWorkspace = remoteWorkspace
            self.simulators = simulators
            self.criteria = criteria
            self.firstChoice = firstChoice
            self.createdSimulator = createdSimulator
            self.pool = pool
            self.buildCache = buildCache
            idle = [link]
        }

        var hostName: String { link.host.name }

        /// A connection no running layer uses, if one is open.
        func takeIdleLink() -> HostLink? {
            lock.lock()
            defer { lock.unlock() }
            return idle.isEmpty ? nil : idle.removeFirst()
        }

        /// Keeps a connection opened for a layer that found none idle; it is closed when the run ends.
        func adopt(_ link: HostLink) {
            lock.lock()
            defer { lock.unlock() }
            extra.append(link)
        }

        /// A layer is done with `link`.
        func giveBack(_ link: HostLink) {
            lock.lock()
            defer { lock.unlock() }
            if !idle.contains(where: { $0 === link }) { idle.append(link) }
        }

        /// Every open connection of the place, the set-up one first.
        var links: [HostLink] {
            lock.lock()
            defer { lock.unlock() }
            return [link] + extra
        }

        /// Ends the place's connections once the run cleaned up: every one no layer lost goes back to `connector`
        /// (none when `nil`: a cancelled run may have stopped mid-command); then the place lets go of the ones
        /// opened for layers running at once (a session nobody keeps disconnects when released).
        func release(givingBackTo connector: HostConnector?) {
            lock.lock()
            let links = [link] + extra
            idle.removeAll { link in extra.contains { $0 === link } }
            extra = []
            lock.unlock()
            guard let connector else { return }
            for link in links where !link.lost { connector.giveBack(link.connection, host: link.host) }
        }
    }

    /// A connection of `place` for one layer: an idle one, or a new one to the same host (verified like the first).
    func borrowLink(from place: HostPlace) throws -> HostLink {
        if let idle = place.takeIdleLink() { return idle }
        let connected = try connector.connect(place.link.host, cancellation: cancellation)
        let link = HostLink(
            host: place.link.host, remote: Self.prepared(connected.remote, environment: place.link.environment),
            environment: place.link.environment)
        place.adopt(link)
        return link
    }
}
