import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// A wide-area link on loopback, for the benchmark: listens on 127.0.0.1, connects each client to `targetPort`, and
/// carries each direction through a `LinkDirection` (half the round trip of delay, the profile's rate).
///
/// It splits TCP: each side talks TCP over loopback to the relay, so what it models is the link's delay and rate as
/// SSH sees them (its channel windows and round trips), not the far side's slow start or loss recovery.
public final class LinkRelay: @unchecked Sendable {
    public let profile: LinkProfile
    public let port: Int
    private let targetPort: Int
    private let listener: Int32
    private let lock = NSLock()
    private var totals = (up: LinkStatistics(), down: LinkStatistics(), connections: 0)
    /// Called with each connection's figures when it ends (the `relay` command prints them).
    private let onConnectionEnd: (@Sendable (_ up: LinkStatistics, _ down: LinkStatistics) -> Void)?

    public init(
        profile: LinkProfile, listenPort: Int = 0, targetPort: Int,
        onConnectionEnd: (@Sendable (_ up: LinkStatistics, _ down: LinkStatistics) -> Void)? = nil
    ) throws {
        self.profile = profile
        self.targetPort = targetPort
        self.onConnectionEnd = onConnectionEnd
        (listener, port) = try LoopbackSocket.listen(port: listenPort)
        let acceptor = Thread { [self] in acceptConnections() }
        acceptor.start()
    }

    /// Stops taking connections; those under way carry on until their ends close.
    public func stop() {
        shutdown(listener, Int32(SHUT_RDWR))
        close(listener)
    }

    /// Every ended connection's figures, client → target (`up`) and back (`down`).
    public func statistics() -> (up: LinkStatistics, down: LinkStatistics, connections: Int) {
        lock.lock()
        defer { lock.unlock() }
        return totals
    }

    private func acceptConnections() {
        while true {
            let client = accept(listener, nil, nil)
            if client < 0 {
                if errno == EINTR || errno == ECONNABORTED { continue }
                return
            }
            LoopbackSocket.noDelay(client)
            let relayed = Thread { [self] in carry(client) }
            relayed.start()
        }
    }

    private func carry(_ client: Int32) {
        guard let target = try? LoopbackSocket.connect(port: targetPort) else {
            close(client)
            return
        }
        let up = LinkDirection(from: client, to: target, profile: profile)
        let down = LinkDirection(from: target, to: client, profile: profile)
        up.start()
        down.start()
        let upFigures = up.finish()
        let downFigures = down.finish()
        close(client)
        close(target)
        lock.lock()
        totals.up.add(upFigures)
        totals.down.add(downFigures)
        totals.connections += 1
        lock.unlock()
        onConnectionEnd?(upFigures, downFigures)
    }
}
