import Foundation
import PipeTestSupport
import XCTest

/// A `checklist` layer that installs an app boots its simulator first (`simctl boot`, then `simctl bootstatus -b`
/// under `boot-timeout`); a simulator that does not boot is an infrastructure failure, retried on another one.
final class SimulatorBootTests: EmulatedHostTestCase {
    private let pipeline = """
        repository:
          workspace: examples/reader-app
        simulator:
          device: iPhone 15
        retry:
          infrastructure: 1
          backoff: 0
        layers:
          shortcuts:
            plugin: checklist
            install: Build/Reader.app
            launch: com.example.reader
            boot-timeout: 30
            items: [Open Shortcuts and search for "Check Reading ID"]
        """

    /// A project whose workspace holds a minimal `Reader.app` (an Info.plist with its bundle identifier).
    private func projectWithApp() throws -> PipeProject {
        let project = try makeProject(pipeline: pipeline)
        let app = project.url.appendingPathComponent("examples/reader-app/Build/Reader.app")
        try FileManager.default.createDirectory(at: app, withIntermediateDirectories: true)
        let plist = try PropertyListSerialization.data(
            fromPropertyList: ["CFBundleIdentifier": "com.example.reader", "CFBundleName": "Reader"], format: .xml,
            options: 0)
        try plist.write(to: app.appendingPathComponent("Info.plist"))
        try project.shell(
            "git add -A && git -c user.email=e2e@pipe.test -c user.name=e2e commit -q -m 'the built app'")
        return project
    }

    private func bootedUDIDs() throws -> Set<String> {
        let listing = try host.inspect("xcrun simctl list devices booted -j")
        let json = try XCTUnwrap(
            try JSONSerialization.jsonObject(with: Data(listing.stdout.utf8)) as? [String: Any], listing.combined)
        let devices = (json["devices"] as? [String: [[String: Any]]] ?? [:]).values.flatMap { $0 }
        return Set(devices.compactMap { $0["udid"] as? String })
    }

    func testTheChecklistBootsItsSimulatorBeforeInstalling() throws {
        let project = try projectWithApp()
        let run = try project.pipe(["run", "app-intents"])
        let record = try project.lastRecord()
        let shortcuts = try XCTUnwrap(layer("shortcuts", in: record))
        XCTAssertEqual(shortcuts["outcome"] as? String, "awaiting-signoff", run.combined)
        let attempts = try XCTUnwrap(shortcuts["attempts"] as? [[String: Any]])
        XCTAssertEqual(attempts.count, 1)
        let facts = try XCTUnwrap(attempts.first?["facts"] as? [String: String])
        let udid = try XCTUnwrap(facts["simulatorUDID"])
        XCTAssertEqual(facts["launched"], "com.example.reader")
        XCTAssertTrue(try bootedUDIDs().contains(udid), "\(udid) is booted on the host")
        XCTAssertTrue(run.stdout.contains("xcrun simctl boot \(udid)"), run.combined)
        XCTAssertTrue(run.stdout.contains("xcrun simctl bootstatus \(udid) -b"), run.combined)
    }

    func testABootPastTheDeadlineIsInfrastructure() throws {
        var config = try host.readConfig()
        config["faults"] = ["simulatorBootSeconds": 30]
        try host.writeConfig(config)
        let project = try projectWithApp()
        try project.commit(
            "pipelines/app-intents.yml", pipeline.replacingOccurrences(of: "boot-timeout: 30", with: "boot-timeout: 1"),
            message: "a 1 s boot deadline")
        let started = Date()
        let run = try project.pipe(["run", "app-intents"])
        XCTAssertLessThan(Date().timeIntervalSince(started), 20, "the deadline, not the boot, ended both attempts")
        let shortcuts = try XCTUnwrap(layer("shortcuts", in: try project.lastRecord()))
        XCTAssertEqual(shortcuts["outcome"] as? String, "infrastructure", run.combined)
        let evidence = (shortcuts["evidence"] as? [String] ?? []).joined(separator: "\n")
        XCTAssertTrue(evidence.contains("did not boot within 1 s"), evidence)
        XCTAssertTrue(evidence.contains("raise `boot-timeout`"), evidence)
        XCTAssertEqual((shortcuts["attempts"] as? [[String: Any]])?.count, 2, "retried once")
    }

    func testASimulatorThatDoesNotBootIsInfrastructureRetriedOnAnotherSimulator() throws {
        var config = try host.readConfig()
        config["faults"] = ["simulatorBootFailure": true]
        try host.writeConfig(config)
        let project = try projectWithApp()
        let bootedBefore = try bootedUDIDs()
        let run = try project.pipe(["run", "app-intents"])
        // The checklist is in the release gate: the merge gate (the exit code) does not judge it.
        XCTAssertTrue(run.stdout.contains("retry 1 of 1"), run.combined)
        let shortcuts = try XCTUnwrap(layer("shortcuts", in: try project.lastRecord()))
        XCTAssertEqual(shortcuts["outcome"] as? String, "infrastructure")
        let evidence = (shortcuts["evidence"] as? [String] ?? []).joined(separator: "\n")
        XCTAssertTrue(evidence.contains("could not boot simulator"), evidence)
        XCTAssertTrue(evidence.contains("Unable to boot the Simulator."), evidence)
        let attempts = try XCTUnwrap(shortcuts["attempts"] as? [[String: Any]])
        XCTAssertEqual(attempts.map { $0["outcome"] as? String }, ["infrastructure", "infrastructure"])
        XCTAssertEqual(Set(attempts.compactMap { $0["simulatorUDID"] as? String }).count, 2, "another simulator")
        XCTAssertEqual(try bootedUDIDs(), bootedBefore, "nothing more booted")
    }
}
