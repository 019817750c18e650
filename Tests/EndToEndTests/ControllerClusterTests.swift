import Foundation
import PipeTestSupport
import XCTest

/// Two controllers serving one PostgreSQL run store and one emulated host: every queued run is taken by exactly
/// one of them, and the host's capacity holds across both.
final class ControllerClusterTests: ControllerTestCase {
    func testTwoControllersShareOneQueueAndOneHostWithoutRunningAnythingTwice() throws {
        let url = try PostgresServer.shared().createDatabase()
        let project = try controllerProject(capacity: 2, testSeconds: 1)
        // One run at a time each: the host's two slots are used only when both controllers work.
        try writeConfig("store: \(url)\nlimits: {runs: 1}\n", in: project)
        let queued = try (0..<6).map { _ in try enqueue(project, ["--store", url]) }
        let first = try startController(in: project)
        let second = try startController(in: project)
        XCTAssertTrue(output(of: second).contains("started with"), "a second controller joins: \(output(of: second))")
        var all: [[String: Any]] = []
        try waitUntil("every queued run has ended", timeout: 120) {
            let result = try project.pipe(["runs", "list", "--limit", "all", "--json", "--store", url])
            guard result.exitCode == 0 else { throw EmulatedMacHostError(message: result.combined) }
            all = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [[String: Any]])
            return all.count == 6 && all.allSatisfy(isEnded)
        }
        XCTAssertEqual(all.compactMap { $0["runID"] as? String }.sorted(), queued.sorted(), "each queued run ran, once")
        XCTAssertTrue(all.allSatisfy { $0["status"] as? String == "finished" }, "\(all)")
        let spans = try all.map { run -> (String, String) in
            (try XCTUnwrap(run["startedAt"] as? String), try XCTUnwrap(run["finishedAt"] as? String))
        }
        let overlap = spans.map { span in spans.filter { $0.0 <= span.0 && span.0 < $0.1 }.count }.max() ?? 0
        XCTAssertLessThanOrEqual(overlap, 2, "never more runs at once than the host's 2 slots: \(spans)")
        let logs = [output(of: first), output(of: second)]
        for (index, log) in logs.enumerated() {
            XCTAssertTrue(queued.contains { log.contains($0) }, "controller \(index + 1) ran some of the runs:\n\(log)")
        }
        for runID in queued {
            XCTAssertEqual(
                logs.filter { $0.contains("run \(runID)") || $0.contains("\"runID\":\"\(runID)\"") }.count, 1,
                "run \(runID) was run by one controller")
        }
        let status = try project.pipe(["controller", "status", "--config", "controller.yml"])
        XCTAssertEqual(status.exitCode, 0, status.combined)
        XCTAssertTrue(status.stdout.contains("several may serve this store"), status.stdout)
        XCTAssertEqual(stop(first).exitCode, 0)
        XCTAssertEqual(stop(second).exitCode, 0)
    }
}
