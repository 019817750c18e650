import Foundation
import PipeCore
import PipeSSH

/// The controller's SSH sessions, kept logged in between its runs: a run to a host that a run used moments ago
/// starts without a TCP connection, key exchange and login.
///
/// Each run gets a `HostConnector` of its own (`connector(events:)`), since the notes on reuse belong in its output.
/// `connect` lends the session given back last for the exact same host configuration (`HostConfig` as the hosts
/// file says it now) when it is still fit (`SSHSession.reuseRefusal`: connected, nothing unread on its socket, idle
/// less than `idleSeconds`, its host key still trusted by the known_hosts file as it reads now), else connects anew.
/// A reused session that is dead all the same at its first command is replaced then (`PooledRemoteHost`). The engine
/// gives the healthy connections of a run back when it ends (`HostConnector.giveBack`); at most a host's `capacity`
/// of them wait, and one idle `idleSeconds` is closed, by a thread of the pool, whether or not a run comes.
///
/// A session is lent to one run thread at a time (libssh2 sessions are not thread-safe): the shelf is read and
/// changed under a lock, and a session taken off it belongs to the taking thread alone.
final class WarmSessionPool: @unchecked Sendable {
    private let fresh: SSHHostConnector
    private let clock: () -> Double
    private let condition = NSCondition()
    private var shelf = IdleSessionShelf<SSHSession>()
    private var limit: Double
    private var closed = false
    private var reaperStarted = false

    init(environment: [String: String], idleSeconds: Double, clock: @escaping () -> Double = monotonicSeconds) {
        fresh = SSHHostConnector(environment: environment)
        limit = idleSeconds
        self.clock = clock
    }

    static func monotonicSeconds() -> Double { Double(DispatchTime.now().uptimeNanoseconds) / 1_000_000_000 }

    /// How long a session may wait for the next run; 0 keeps none. A change applies to the waiting ones at once.
    var idleSeconds: Double {
        get {
            condition.lock()
            defer { condition.unlock() }
            return limit
        }
        set {
            condition.lock()
            limit = newValue
            condition.signal()
            condition.unlock()
        }
    }

    /// How many sessions wait for a run (tests).
    var waitingCount: Int {
        condition.lock()
        defer { condition.unlock() }
        return shelf.entries.count
    }

    /// The connector of one run: notes on the sessions it reuses go to `events`, which must take events from
    /// several threads (layers running at once open connections of their own).
    func connector(events: EventSink) -> HostConnector { RunConnector(pool: self, events: events) }

    /// Closes every waiting session, and from now on each one given back: the controller is stopping.
    func closeAll() {
        condition.lock()
        closed = true
        let waiting = shelf.removeAll()
        condition.signal()
        condition.unlock()
        close(waiting, why: "the controller stopped")
    }

    private struct RunConnector: HostConnector {
        let pool: WarmSessionPool
        let events: EventSink

        func connect(_ host: HostConfig, cancellation: CancellationToken) throws -> ConnectedHost {
            try pool.lend(host, events: events)
        }

        func giveBack(_ remote: RemoteHost, host: HostConfig) { pool.takeBack(remote) }
    }

    // MARK: - Lending and taking back

    private func lend(_ host: HostConfig, events: EventSink) throws -> ConnectedHost {
        while let entry = takeWaiting(host) {
            let age = Self.seconds(clock() - entry.openedAt)
            if let refusal = entry.session.reuseRefusal(environment: fresh.environment) {
                events.emit(
                    .note("not reusing the SSH session to \(host.name) opened \(age) ago: \(refusal); connecting anew"))
                entry.session.disconnect(description: "Pipe: not reused")
                continue
            }
            events.emit(.note("reusing the SSH session to \(host.name) opened \(age) ago"))
            let remote = PooledRemoteHost(
                fresh.remoteHost(over: entry.session), openedAt: entry.openedAt,
                replacingIfDeadAtFirstCommand: { [self] error in
                    events.emit(
                        .warning(
                            "the reused SSH session to \(host.name) failed at its first command (\(error.message)); "
                                + "connecting anew"))
                    return try open(host)
                })
            return SSHHostConnector.connected(entry.session, remote: remote)
        }
        let opened = try open(host)
        return SSHHostConnector.connected(
            opened.remote.session,
            remote: PooledRemoteHost(opened.remote, openedAt: opened.openedAt, replacingIfDeadAtFirstCommand: nil))
    }

    private func open(_ host: HostConfig) throws -> (remote: SSHRemoteHost, openedAt: Double) {
        let session = try SSHSession.connect(to: host, environment: fresh.environment)
        return (fresh.remoteHost(over: session), clock())
    }

    /// The session given back last for `host`, off the shelf; closes those idle too long on the way.
    private func takeWaiting(_ host: HostConfig) -> IdleSessionShelf<SSHSession>.Entry? {
        condition.lock()
        let (taken, expired) = shelf.take(host, now: clock(), limit: limit)
        let idle = limit
        condition.unlock()
        close(expired, why: "idle for \(Self.seconds(idle))")
        return taken
    }

    /// A run's connection that ended healthy: shelved for the next run, or closed when none is to be kept.
    private func takeBack(_ remote: RemoteHost) {
        guard let lent = remote as? PooledRemoteHost else { return }
        let session = lent.remote.session
        // Unfit now (lost, a channel left open): dropped, it closes when released.
        guard session.reuseRefusal(environment: fresh.environment) == nil else { return }
        let entry = IdleSessionShelf.Entry(
            host: session.host, session: session, openedAt: lent.openedAt, idleSince: clock())
        condition.lock()
        let why =
            closed
            ? "the controller stopped" : limit > 0 ? "more than \(session.host.capacity) kept" : "session-idle is 0"
        let closing = closed ? [entry] : shelf.put(entry, cap: session.host.capacity, limit: limit)
        if !closed && !reaperStarted {
            reaperStarted = true
            Thread { [self] in closeIdleSessions() }.start()
        }
        condition.signal()
        condition.unlock()
        close(closing, why: why)
    }

    /// The pool's thread: closes each session when it has been idle for the limit, whether or not a run comes.
    private func closeIdleSessions() {
        condition.lock()
        while !closed {
            let expired = shelf.expire(now: clock(), limit: limit)
            if !expired.isEmpty {
                let why = limit > 0 ? "idle for \(Self.seconds(limit))" : "session-idle is 0"
                condition.unlock()
                close(expired, why: why)
                condition.lock()
                continue
            }
            if let next = shelf.nextExpiry(limit: limit) {
                _ = condition.wait(until: Date(timeIntervalSinceNow: next - clock()))
            } else {
                condition.wait()
            }
        }
        condition.unlock()
    }

    /// Ends sessions off the shelf, saying why in the host's log (sshd logs the reason of a disconnect).
    private func close(_ entries: [IdleSessionShelf<SSHSession>.Entry], why: String) {
        for entry in entries { entry.session.disconnect(description: "Pipe: \(why)") }
    }

    static func seconds(_ value: Double) -> String {
        if value < 10 { return String(format: "%.1f s", value) }
        return value < 120 ? String(format: "%.0f s", value) : String(format: "%.0f min", value / 60)
    }
}
