import Foundation
import PipeTestSupport
import XCTest

/// `simulator: { create: true }` on a host without a matching simulator: Pipe creates one (`simctl create`), runs
/// on it and deletes it when the run ends; one left by a killed run goes with `pipe hosts clean`.
final class SimulatorCreateTests: EmulatedHostTestCase {
    /// The default emulated host knows the iPhone 15 Plus device type but has no such simulator.
    private let pipeline = """
        repository:
          workspace: examples/reader-app
        simulator:
          device: iPhone 15 Plus
          runtime: "17.5"
          create: true
        layers:
          logic:
            plugin: xcodebuild-test
            scheme: Reader
            only-testing: [ReaderTests/ReadingIDTests]
            timeout: 2m
        """

    /// The host's simulators, UDID → name.
    private func hostSimulators() throws -> [String: String] {
        let listing = try host.inspect("xcrun simctl list devices -j")
        let json = try XCTUnwrap(
            try JSONSerialization.jsonObject(with: Data(listing.stdout.utf8)) as? [String: Any], listing.combined)
        let devices = (json["devices"] as? [String: [[String: Any]]] ?? [:]).values.flatMap { $0 }
        return Dictionary(
            uniqueKeysWithValues: devices.compactMap { device in
                (device["udid"] as? String).map { ($0, device["name"] as? String ?? "") }
            })
    }

    func testASimulatorIsCreatedUsedAndDeletedAfterTheRun() throws {
        let before = try hostSimulators()
        XCTAssertFalse(before.values.contains { $0.contains("iPhone 15 Plus") })
        let project = try makeProject(pipeline: pipeline)
        let run = try project.pipe(["run", "app-intents"])
        XCTAssertEqual(run.exitCode, 0, run.combined)
        let record = try project.lastRecord()
        let choice = try XCTUnwrap(record["simulator"] as? [String: Any])
        let simulator = try XCTUnwrap(choice["simulator"] as? [String: Any])
        let udid = try XCTUnwrap(simulator["udid"] as? String)
        XCTAssertEqual(simulator["name"] as? String, "Pipe iPhone 15 Plus (iOS 17.5)")
        XCTAssertNil(before[udid], "a new simulator")
        XCTAssertTrue((choice["reason"] as? String ?? "").hasPrefix("created by Pipe for this run"), "\(choice)")
        let attempts = try XCTUnwrap(layer("logic", in: record)?["attempts"] as? [[String: Any]])
        XCTAssertEqual(attempts.first?["simulatorUDID"] as? String, udid, "the layer ran on it")
        XCTAssertEqual(try hostSimulators(), before, "deleted when the run ended")
    }

    func testHostsCleanDeletesTheSimulatorOfAKilledRun() throws {
        let before = try hostSimulators()
        let project = try makeProject(pipeline: pipeline)
        try makeFirstTest(of: "ReadingIDTests", take: 600, in: project)
        let pipe = try BackgroundPipe(["run", "app-intents"], in: project)
        let folder = try XCTUnwrap(waitUntilTestsRun(in: project, layer: "logic"))
        kill(pipe.pid, SIGKILL)
        pipe.wait(timeout: 10)
        let left = try hostSimulators().filter { before[$0.key] == nil }
        XCTAssertEqual(Array(left.values), ["Pipe iPhone 15 Plus (iOS 17.5)"], "the killed run left its simulator")

        let clean = try project.pipe(["hosts", "clean"])
        XCTAssertEqual(clean.exitCode, 0, clean.combined)
        XCTAssertTrue(clean.stdout.contains("deleted simulator \(left.keys.first ?? "?")"), clean.combined)
        XCTAssertEqual(try hostSimulators(), before, "hosts clean deleted it")
        try killHostProcesses(mentioning: folder.lastPathComponent)
    }
}
