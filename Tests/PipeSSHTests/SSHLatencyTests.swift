import Foundation
import PipeCore
import XCTest

@testable import PipeSSH

/// What a connection and a command cost here; printed for the record, bounded loosely so a regression (a lost
/// TCP_NODELAY costs ~45 ms per exchange) fails without making the test flaky on a busy machine.
final class SSHLatencyTests: XCTestCase {
    func testConnectAndExecLatency() throws {
        let server = try TestSSHServer.require()
        var cold = [Double]()
        for _ in 0..<5 {
            let started = MonotonicClock.seconds()
            let host = SSHRemoteHost(session: try SSHSession.connect(to: server.hostConfig()))
            XCTAssertEqual(try host.capture("true").exit, .exited(0))
            cold.append(MonotonicClock.seconds() - started)
            host.session.disconnect()
        }
        let host = SSHRemoteHost(session: try SSHSession.connect(to: server.hostConfig()))
        _ = try host.capture("true")
        let count = 100
        let started = MonotonicClock.seconds()
        for _ in 0..<count { _ = try host.capture("true") }
        let warm = (MonotonicClock.seconds() - started) / Double(count)
        let coldMedian = cold.sorted()[cold.count / 2]
        print(
            "PipeSSH latency: connect+auth+`true` median \(milliseconds(coldMedian)) "
                + "(all: \(cold.map(milliseconds).joined(separator: ", "))); warm exec \(milliseconds(warm)) each over \(count)"
        )
        XCTAssertLessThan(coldMedian, 0.5)
        XCTAssertLessThan(warm, 0.04)
    }

    private func milliseconds(_ seconds: Double) -> String { String(format: "%.1f ms", seconds * 1000) }
}
