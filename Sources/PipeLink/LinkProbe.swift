import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// Measures a relay as a user of it would: round trips of one byte, and a bulk transfer each way, through a
/// `LinkRelay` of the given profile to a server in this process. What it reports against the profile is the
/// relay's own accuracy on this machine, at this moment.
public enum LinkProbe {
    public struct Measurement: Sendable {
        public let profile: LinkProfile
        /// The median of the one-byte round trips.
        public let roundTripSeconds: Double
        /// Bulk bytes a second, client → server and back, one round trip taken off each transfer's time.
        public let upBytesPerSecond: Double
        public let downBytesPerSecond: Double
        /// Each bulk transfer's whole time, from the request to its last byte.
        public let upSeconds: Double
        public let downSeconds: Double
        /// How late the relay handed chunks on against its pacing, over the probe's connections.
        public let statistics: LinkStatistics
    }

    public static func measure(_ profile: LinkProfile, bulkBytes: Int, roundTrips: Int = 20) throws -> Measurement {
        let server = try ProbeServer(bulkBytes: bulkBytes)
        defer { server.stop() }
        let relay = try LinkRelay(profile: profile, targetPort: server.port)
        defer { relay.stop() }

        let ping = try LoopbackSocket.connect(port: relay.port)
        var times: [Double] = []
        var byte: [UInt8] = [UInt8(ascii: "p")]
        for _ in 0..<max(1, roundTrips) {
            let started = MonotonicClock.now()
            guard byte.withUnsafeBytes({ LoopbackSocket.sendAll(ping, $0) }),
                byte.withUnsafeMutableBytes({ LoopbackSocket.receiveAll(ping, $0, count: 1) })
            else {
                close(ping)
                throw LinkFailure("the probe's round trip through the relay ended early")
            }
            times.append(MonotonicClock.now() - started)
        }
        close(ping)
        let roundTrip = times.sorted()[times.count / 2]

        let up = try bulk(port: relay.port, command: "u", bytes: bulkBytes, sending: true)
        let down = try bulk(port: relay.port, command: "d", bytes: bulkBytes, sending: false)
        var statistics = LinkStatistics()
        let deadline = MonotonicClock.now() + 5
        while relay.statistics().connections < 3 && MonotonicClock.now() < deadline { usleep(1_000) }
        let totals = relay.statistics()
        statistics.add(totals.up)
        statistics.add(totals.down)
        return Measurement(
            profile: profile, roundTripSeconds: roundTrip,
            upBytesPerSecond: Double(bulkBytes) / max(up - roundTrip, 1e-6),
            downBytesPerSecond: Double(bulkBytes) / max(down - roundTrip, 1e-6), upSeconds: up, downSeconds: down,
            statistics: statistics)
    }

    /// Seconds from the request to the last byte's acknowledgement (up) or arrival (down).
    private static func bulk(port: Int, command: Character, bytes: Int, sending: Bool) throws -> Double {
        let connection = try LoopbackSocket.connect(port: port)
        defer { close(connection) }
        var buffer = [UInt8](repeating: 0x5A, count: 256 * 1024)
        buffer[0] = command.asciiValue!
        let started = MonotonicClock.now()
        if sending {
            var sent = 0
            while sent < bytes {
                let count = min(buffer.count, bytes - sent)
                guard buffer.withUnsafeBytes({ LoopbackSocket.sendAll(connection, .init(rebasing: $0[0..<count])) })
                else { throw LinkFailure("the probe's upload through the relay ended early") }
                sent += count
            }
            guard buffer.withUnsafeMutableBytes({ LoopbackSocket.receiveAll(connection, $0, count: 1) }) else {
                throw LinkFailure("the probe's upload was not acknowledged")
            }
        } else {
            guard buffer.withUnsafeBytes({ LoopbackSocket.sendAll(connection, .init(rebasing: $0[0..<1])) }),
                buffer.withUnsafeMutableBytes({ LoopbackSocket.receiveAll(connection, $0, count: 1) })
            else { throw LinkFailure("the probe's download through the relay ended early") }
            var received = 1
            while received < bytes {
                let count = buffer.withUnsafeMutableBytes { recv(connection, $0.baseAddress, $0.count, 0) }
                guard count > 0 else { throw LinkFailure("the probe's download through the relay ended early") }
                received += count
            }
        }
        return MonotonicClock.now() - started
    }
}

/// The far end of a probe: `p` echoes each byte, `u` takes `bulkBytes` (the `u` included) and answers one byte,
/// `d` sends `bulkBytes`.
private final class ProbeServer: @unchecked Sendable {
    let port: Int
    private let listener: Int32
    private let bulkBytes: Int

    init(bulkBytes: Int) throws {
        self.bulkBytes = bulkBytes
        (listener, port) = try LoopbackSocket.listen(port: 0)
        let acceptor = Thread { [self] in
            while true {
                let connection = accept(listener, nil, nil)
                if connection < 0 {
                    if errno == EINTR { continue }
                    return
                }
                LoopbackSocket.noDelay(connection)
                let serving = Thread { [self] in
                    serve(connection)
                    close(connection)
                }
                serving.start()
            }
        }
        acceptor.start()
    }

    func stop() {
        shutdown(listener, Int32(SHUT_RDWR))
        close(listener)
    }

    private func serve(_ connection: Int32) {
        var buffer = [UInt8](repeating: 0x5A, count: 256 * 1024)
        guard buffer.withUnsafeMutableBytes({ LoopbackSocket.receiveAll(connection, $0, count: 1) }) else { return }
        switch buffer[0] {
        case UInt8(ascii: "p"):
            repeat {
                guard buffer.withUnsafeBytes({ LoopbackSocket.sendAll(connection, .init(rebasing: $0[0..<1])) })
                else { return }
            } while buffer.withUnsafeMutableBytes({ LoopbackSocket.receiveAll(connection, $0, count: 1) })
        case UInt8(ascii: "u"):
            var received = 1
            while received < bulkBytes {
                let count = buffer.withUnsafeMutableBytes { recv(connection, $0.baseAddress, $0.count, 0) }
                guard count > 0 else { return }
                received += count
            }
            _ = buffer.withUnsafeBytes { LoopbackSocket.sendAll(connection, .init(rebasing: $0[0..<1])) }
        case UInt8(ascii: "d"):
            var sent = 0
            while sent < bulkBytes {
                let count = min(buffer.count, bulkBytes - sent)
                guard buffer.withUnsafeBytes({ LoopbackSocket.sendAll(connection, .init(rebasing: $0[0..<count])) })
                else { return }
                sent += count
            }
        default:
            return
        }
    }
}
