import Foundation
import PipeTestSupport
import XCTest

/// The controller keeps the trust rule: a queued run whose code its hosts may not run is refused with the reason
/// (not left waiting for a host that never comes), and the next one, once project.yml protects main, runs.
final class ControllerTrustTests: ControllerTestCase {
    func testTheControllerRefusesARunItsHostsMayNotTakeAndRunsReleaseCode() throws {
        let project = try controllerProject()
        try project.writeHostsFile(
            host.hostsFileEntry().replacingOccurrences(
                of: "    capacity: 1\n", with: "    capacity: 1\n    trust: release\n"))
        try writeConfig("grace-period: 5s\n", in: project)
        let refused = try enqueue(project)
        let controller = try startController(in: project)
        var all: [[String: Any]] = []
        try waitUntil("the first run has ended", timeout: 60) {
            all = try runs(project)
            return isEnded(all.first { $0["runID"] as? String == refused })
        }
        let first = try XCTUnwrap(all.first { $0["runID"] as? String == refused })
        XCTAssertEqual(first["exitCode"] as? Int, 2, "\(first)")
        XCTAssertTrue(
            (first["problem"] as? String ?? "").hasPrefix("host mac-1 is `release`; this run's code is `trusted`"),
            "\(first)")
        XCTAssertFalse(host.sshdLog().contains("Accepted publickey"), host.sshdLog())

        try "trusted-refs: [main]\n".write(
            to: project.url.appendingPathComponent("project.yml"), atomically: true, encoding: .utf8)
        let accepted = try enqueue(project)
        try waitUntil("the second run has ended", timeout: 90) {
            all = try runs(project)
            return isEnded(all.first { $0["runID"] as? String == accepted })
        }
        let second = try XCTUnwrap(all.first { $0["runID"] as? String == accepted })
        XCTAssertEqual(second["exitCode"] as? Int, 0, "\(second)\n\(output(of: controller))")
        let record = try JSONSerialization.jsonObject(
            with: Data(contentsOf: project.url.appendingPathComponent("artifacts/\(accepted)/summary.json")))
        XCTAssertEqual(((record as? [String: Any])?["code"] as? [String: Any])?["level"] as? String, "release")
        XCTAssertEqual(stop(controller).exitCode, 0)
    }
}
