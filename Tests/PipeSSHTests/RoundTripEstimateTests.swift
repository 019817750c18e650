import Foundation
import PipeCore
import PipeLink
import XCTest

@testable import PipeSSH

/// Behind a TCP relay (a proxy, a jump host) the kernel's round-trip estimate is the first hop's; the session's is
/// the host's, from how long a channel took to open, and it is what chooses compression for a far host.
final class RoundTripEstimateTests: XCTestCase {
    func testAHostFortyMillisecondsAwayBehindARelayIsSeenFortyMillisecondsAway() throws {
        let server = try TestSSHServer.require()
        let relay = try LinkRelay(
            profile: try LinkProfile(roundTripSeconds: 0.04, bitsPerSecond: 1e9), targetPort: server.port)
        defer { relay.stop() }
        let knownHosts = server.file("known_hosts_relay")
        try "[127.0.0.1]:\(relay.port) \(server.hostPublicKey)\n".write(
            to: knownHosts, atomically: true, encoding: .utf8)
        var config = server.hostConfig(knownHostsFile: knownHosts.path)
        config.port = relay.port
        let host = SSHRemoteHost(session: try SSHSession.connect(to: config))
        defer { host.session.disconnect() }
        XCTAssertEqual(try host.capture("true").exit, .exited(0))

        XCTAssertLessThan(
            host.session.socket.smoothedRoundTripSeconds ?? 0, 0.02, "the kernel sees only the loopback hop")
        let roundTrip = try XCTUnwrap(host.session.roundTripSeconds)
        XCTAssertGreaterThanOrEqual(roundTrip, 0.04, "a channel open waits a whole round trip of the link")
        XCTAssertEqual(
            WorkspaceCompressionChoice.choose(
                .auto, bytes: 20_000_000, hostHasZstd: true, roundTripSeconds: roundTrip, observedBytesPerSecond: nil),
            .zstd)
    }
}
