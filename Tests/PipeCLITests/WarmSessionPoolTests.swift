import Foundation
import PipeCore
import PipeSSH
import PipeTestSupport
import XCTest

@testable import PipeCLI

/// The controller's warm SSH sessions against an emulated Mac host (a real sshd): lending, giving back, one run
/// thread per session, and the fallback for a reused session dead at its first command.
final class WarmSessionPoolTests: XCTestCase {
    private var hostState: TemporaryDirectory!
    private var emulated: EmulatedMacHost!
    private var host: HostConfig!

    override func setUpWithError() throws {
        hostState = try TemporaryDirectory(prefix: "pipe-pool-host")
        emulated = try EmulatedMacHost(name: "mac-pool", stateDirectory: hostState.url)
        host = emulated.hostConfig(capacity: 2)
    }

    override func tearDown() {
        emulated?.stop()
        hostState?.remove()
    }

    func testASessionGivenBackIsLentToTheNextRunWithANote() throws {
        let pool = WarmSessionPool(environment: [:], idleSeconds: 60)
        defer { pool.closeAll() }
        let firstNotes = EventRecorder()
        let first = try pool.connector(events: firstNotes).connect(host, cancellation: CancellationToken())
        let firstPID = try sshdPID(over: first.remote)
        XCTAssertTrue(firstNotes.events.isEmpty, "a new connection needs no note")
        pool.connector(events: firstNotes).giveBack(first.remote, host: host)
        XCTAssertEqual(pool.waitingCount, 1)

        let notes = EventRecorder()
        let second = try pool.connector(events: notes).connect(host, cancellation: CancellationToken())
        XCTAssertEqual(try sshdPID(over: second.remote), firstPID, "the same sshd serves it: the same connection")
        XCTAssertEqual(second.fingerprint, first.fingerprint)
        XCTAssertEqual(pool.waitingCount, 0, "lent to one run at a time")
        guard case .note(let text) = notes.events.first else { return XCTFail("no note: \(notes.events)") }
        XCTAssertTrue(text.hasPrefix("reusing the SSH session to mac-pool opened "), text)
    }

    func testTwoRunsAtOnceNeverShareASession() throws {
        let pool = WarmSessionPool(environment: [:], idleSeconds: 60)
        defer { pool.closeAll() }
        let connector = pool.connector(events: EventRecorder())
        let warm = try connector.connect(host, cancellation: CancellationToken())
        connector.giveBack(warm.remote, host: host)
        let one = try connector.connect(host, cancellation: CancellationToken())
        let other = try connector.connect(host, cancellation: CancellationToken())
        XCTAssertNotEqual(try sshdPID(over: one.remote), try sshdPID(over: other.remote))
    }

    func testAChangedHostConfigurationGetsANewConnection() throws {
        let pool = WarmSessionPool(environment: [:], idleSeconds: 60)
        defer { pool.closeAll() }
        let connector = pool.connector(events: EventRecorder())
        let warm = try connector.connect(host, cancellation: CancellationToken())
        let warmPID = try sshdPID(over: warm.remote)
        connector.giveBack(warm.remote, host: host)
        var changed = host!
        changed.workDirectory = "elsewhere"
        let fresh = try connector.connect(changed, cancellation: CancellationToken())
        XCTAssertNotEqual(try sshdPID(over: fresh.remote), warmPID)
    }

    /// The failures a pooled connection's replacement was opened for.
    private final class Replacements {
        var errors: [RemoteError] = []
    }

    /// A pooled connection over a session the host dropped (after one command, with `usedBefore`), whose replacement
    /// is a new connection with `openedAt` 1.
    private func pooledOverDeadSession(usedBefore: Bool) throws -> (PooledRemoteHost, Replacements) {
        let dead = SSHRemoteHost(session: try SSHSession.connect(to: host))
        if usedBefore { _ = try dead.capture("true") }
        try dropConnectionsAndWait(until: { dead.session.reuseRefusal(environment: [:]) != nil })
        let replacements = Replacements()
        let pooled = PooledRemoteHost(
            dead, openedAt: 0,
            replacingIfDeadAtFirstCommand: { [host] error in
                replacements.errors.append(error)
                return (SSHRemoteHost(session: try SSHSession.connect(to: host!)), 1)
            })
        return (pooled, replacements)
    }

    func testAReusedSessionDeadAtItsFirstCommandIsReplacedOnce() throws {
        let (pooled, failures) = try pooledOverDeadSession(usedBefore: true)
        let output = try pooled.capture("echo still here", stdin: nil, timeoutSeconds: 30)
        XCTAssertEqual(output.stdoutText, "still here\n")
        XCTAssertEqual(failures.errors.map(\.kind), [.connectionLost])
        XCTAssertEqual(pooled.openedAt, 1, "the replacement is what goes back to the pool")

        // Once a command reached the host, a lost connection is the engine's to handle, not hidden.
        let replaced = pooled.remote
        try dropConnectionsAndWait(until: { replaced.session.reuseRefusal(environment: [:]) != nil })
        XCTAssertThrowsError(try pooled.capture("true", stdin: nil, timeoutSeconds: 30)) { error in
            XCTAssertEqual((error as? RemoteError)?.kind, .connectionLost)
        }
        XCTAssertEqual(failures.errors.count, 1)
    }

    func testAReusedSessionDeadAtTheRunsSetUpIsReplacedForAllOfIt() throws {
        let (pooled, failures) = try pooledOverDeadSession(usedBefore: false)
        // The engine's set-up asks for several things at once: all of them go over the new connection, still at
        // once (the first command ends only when the second has run).
        let marker = "/tmp/pipe-pool-together-\(UUID().uuidString)"
        let together = pooled.captureTogether(
            [
                "i=0; until [ -e \(marker) ]; do sleep 0.05; i=$((i+1)); [ $i -lt 100 ] || exit 9; done; echo one",
                ": >\(marker); echo two",
            ], timeoutSeconds: 30, syncing: nil)
        try? FileManager.default.removeItem(atPath: marker)
        XCTAssertEqual(try together.outputs.map { try $0.get().stdoutText }, ["one\n", "two\n"])
        XCTAssertEqual(failures.errors.map(\.kind), [.connectionLost])
        XCTAssertEqual(pooled.openedAt, 1)
    }

    func testANewConnectionIsNeverReplaced() throws {
        let remote = SSHRemoteHost(session: try SSHSession.connect(to: host))
        try dropConnectionsAndWait(until: { remote.session.reuseRefusal(environment: [:]) != nil })
        let pooled = PooledRemoteHost(remote, openedAt: 0, replacingIfDeadAtFirstCommand: nil)
        XCTAssertThrowsError(try pooled.capture("true", stdin: nil, timeoutSeconds: 30))
    }

    func testNothingIsKeptOnceClosedOrWithALimitOfZero() throws {
        let pool = WarmSessionPool(environment: [:], idleSeconds: 0)
        let connector = pool.connector(events: EventRecorder())
        connector.giveBack(try connector.connect(host, cancellation: CancellationToken()).remote, host: host)
        XCTAssertEqual(pool.waitingCount, 0)
        pool.idleSeconds = 60
        connector.giveBack(try connector.connect(host, cancellation: CancellationToken()).remote, host: host)
        XCTAssertEqual(pool.waitingCount, 1)
        pool.closeAll()
        XCTAssertEqual(pool.waitingCount, 0)
        connector.giveBack(try connector.connect(host, cancellation: CancellationToken()).remote, host: host)
        XCTAssertEqual(pool.waitingCount, 0)
    }

    // MARK: - Helpers

    /// The pid of the sshd process serving `remote`'s connection: the nearest `sshd` above the command's shell.
    private func sshdPID(over remote: RemoteHost) throws -> String {
        let output = try remote.capture(
            """
            p=$$; while [ "$p" -gt 1 ]; do case "$(ps -o comm= -p "$p")" in sshd*) echo "$p"; exit 0;; esac; \
            p=$(( $(ps -o ppid= -p "$p") )); done; exit 1
            """, stdin: nil, timeoutSeconds: 30)
        XCTAssertEqual(output.exit, .exited(0), output.stderrText)
        return output.stdoutText.trimmingCharacters(in: .whitespacesAndNewlines)
    }

    private func dropConnectionsAndWait(until seen: () -> Bool) throws {
        try SSHDaemonConnections(pidFile: emulated.stateDirectory.appendingPathComponent("sshd.pid")).drop()
        let deadline = Date().addingTimeInterval(5)
        while !seen(), Date() < deadline { usleep(20_000) }
        XCTAssertTrue(seen(), "the client never saw the connection end")
    }
}
