import Foundation
import PipeTestSupport
import XCTest

/// A controller whose pool holds a hostile host keeps serving: the runs that meet it end or move on, the others are
/// unharmed, and the controller itself goes on.
final class ControllerHostileHostTests: ControllerTestCase {
    func testRunsThatMeetAHostileHostMoveOnAndTheControllerSurvives() throws {
        let evil = try HostileMacHost(mode: Self.hostMode)
        defer { evil.stop() }
        try evil.plant("device")
        let project = try controllerProject()
        try project.writeHostsFile(evil.host.hostsFileEntry() + host.hostsFileEntry())
        try writeConfig("limits: {runs: 2}\n", in: project)
        _ = try (0..<4).map { _ in try enqueue(project) }
        let controller = try startController(in: project)
        var all: [[String: Any]] = []
        try waitUntil("every queued run has ended", timeout: 120) {
            all = try runs(project)
            return all.count == 4 && all.allSatisfy(isEnded)
        }
        XCTAssertTrue(controller.process.isRunning, "the controller stopped:\n\(output(of: controller))")
        XCTAssertEqual(
            all.map { $0["exitCode"] as? Int }, [0, 0, 0, 0],
            "each run passes on the honest host, moved there when it met the hostile one:\n\(all)")
        let hostsTried = try project.runFolders().map { folder -> [String] in
            let data = try Data(contentsOf: folder.appendingPathComponent("summary.json"))
            let record = try XCTUnwrap(try JSONSerialization.jsonObject(with: data) as? [String: Any])
            let attempts = (record["layers"] as? [[String: Any]])?.first?["attempts"] as? [[String: Any]] ?? []
            return attempts.compactMap { ($0["facts"] as? [String: String])?["host"] }
        }
        XCTAssertTrue(hostsTried.contains(["mac-evil", "mac-1"]), "no run met the hostile host: \(hostsTried)")
        try evil.plant("endless-simctl")
        _ = try enqueue(project)
        try waitUntil("the fifth run has ended", timeout: 120) {
            all = try runs(project)
            return all.count == 5 && all.allSatisfy(isEnded)
        }
        XCTAssertTrue(controller.process.isRunning, "the controller stopped:\n\(output(of: controller))")
        XCTAssertEqual(stop(controller).exitCode, 0)
    }
}
