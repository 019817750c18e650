import Foundation
import PipeLink
import XCTest

#if canImport(Glibc)
    import Glibc
#endif

/// The relay over real loopback sockets. Its delays and pacing only ever hold bytes back, so the bounds here are
/// the ones the profile guarantees (a figure can never beat the link) and a generous ceiling for a loaded machine.
final class LinkRelayTests: XCTestCase {
    func testBytesComeThroughBothWaysWholeAndInOrderAndNoFasterThanTheLink() throws {
        let profile = try LinkProfile(roundTripSeconds: 0.02, bitsPerSecond: 80e6)
        let echo = try EchoServer()
        defer { echo.stop() }
        let relay = try LinkRelay(profile: profile, targetPort: echo.port)
        defer { relay.stop() }

        var generator = SystemRandomNumberGenerator()
        let payload = (0..<1_000_000).map { _ in UInt8.random(in: 0...255, using: &generator) }
        let connection = try LoopbackSocket.connect(port: relay.port)
        defer { close(connection) }
        let started = Date()
        let sender = Thread {
            _ = payload.withUnsafeBytes { LoopbackSocket.sendAll(connection, $0) }
            shutdown(connection, Int32(SHUT_WR))
        }
        sender.start()
        var received: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 65_536)
        while true {
            let count = buffer.withUnsafeMutableBytes { recv(connection, $0.baseAddress, $0.count, 0) }
            guard count > 0 else { break }
            received += buffer[0..<count]
        }
        let elapsed = Date().timeIntervalSince(started)

        XCTAssertEqual(received.count, payload.count, "every byte comes back")
        XCTAssertTrue(received == payload, "the bytes come back unchanged and in order")
        // Each direction paces the whole payload (less one burst) and adds half the round trip.
        let floor = (Double(payload.count) - profile.burstBytes) / profile.bytesPerSecond + profile.roundTripSeconds
        XCTAssertGreaterThanOrEqual(elapsed, floor, "the relay never moves bytes faster than its link")
        XCTAssertLessThan(elapsed, floor * 10 + 5)

        let deadline = Date().addingTimeInterval(5)
        while relay.statistics().connections < 1 && Date() < deadline { usleep(1_000) }
        let figures = relay.statistics()
        XCTAssertEqual(figures.up.bytes, payload.count)
        XCTAssertEqual(figures.down.bytes, payload.count)
    }

    func testTheProbeMeasuresNoShorterRoundTripAndNoHigherRateThanTheProfile() throws {
        let profile = try LinkProfile(roundTripSeconds: 0.01, bitsPerSecond: 400e6)
        let bulk = 2_000_000
        let measured = try LinkProbe.measure(profile, bulkBytes: bulk, roundTrips: 5)
        XCTAssertGreaterThanOrEqual(measured.roundTripSeconds, profile.roundTripSeconds)
        XCTAssertLessThan(measured.roundTripSeconds, profile.roundTripSeconds * 10 + 2)
        // Each transfer paces the bulk (less one burst that may leave at once) and crosses the round trip once.
        let floor = (Double(bulk) - profile.burstBytes) / profile.bytesPerSecond + profile.roundTripSeconds
        for seconds in [measured.upSeconds, measured.downSeconds] {
            XCTAssertGreaterThanOrEqual(seconds, floor, "the relay never moves bytes faster than its link")
            XCTAssertLessThan(seconds, floor * 50 + 5)
        }
        XCTAssertGreaterThanOrEqual(measured.statistics.bytes, 2 * bulk)
    }

    func testAProfileOutsideSaneBoundsIsRefusedWithItsFigure() {
        XCTAssertThrowsError(try LinkProfile(roundTripSeconds: -1, bitsPerSecond: 1e8)) {
            XCTAssertTrue("\($0)".contains("-1.0 s"), "\($0)")
        }
        XCTAssertThrowsError(try LinkProfile(roundTripSeconds: 0.04, bitsPerSecond: 10)) {
            XCTAssertTrue("\($0)".contains("10.0 bit/s"), "\($0)")
        }
        XCTAssertEqual(try LinkProfile(roundTripSeconds: 0.04, bitsPerSecond: 1e8).description, "40 ms RTT, 100 Mbit/s")
        XCTAssertEqual(try LinkProfile(roundTripSeconds: 0.01, bitsPerSecond: 1e9).description, "10 ms RTT, 1 Gbit/s")
    }
}

/// Sends back whatever it reads, and ends its side when the client ends its own.
private final class EchoServer: @unchecked Sendable {
    let port: Int
    private let listener: Int32

    init() throws {
        (listener, port) = try LoopbackSocket.listen(port: 0)
        let listener = listener
        let acceptor = Thread {
            while true {
                let connection = accept(listener, nil, nil)
                guard connection >= 0 else { return }
                let echoing = Thread {
                    var buffer = [UInt8](repeating: 0, count: 65_536)
                    while true {
                        let count = buffer.withUnsafeMutableBytes { recv(connection, $0.baseAddress, $0.count, 0) }
                        guard count > 0 else { break }
                        guard
                            buffer.withUnsafeBytes({
                                LoopbackSocket.sendAll(connection, .init(rebasing: $0[0..<count]))
                            })
                        else { break }
                    }
                    shutdown(connection, Int32(SHUT_WR))
                    close(connection)
                }
                echoing.start()
            }
        }
        acceptor.start()
    }

    func stop() {
        shutdown(listener, Int32(SHUT_RDWR))
        close(listener)
    }
}
