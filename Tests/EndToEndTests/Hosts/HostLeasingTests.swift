import Foundation
import PipeTestSupport
import XCTest

/// Runs lease a host slot and a simulator through the run store, across `pipe` processes: a host never takes
/// more runs than its capacity, and two runs never share a simulator.
final class HostLeasingTests: EmulatedHostTestCase {
    private let pipeline = EmulatedHostTestCase.oneLogicLayerPipeline

    private func slowProject(capacity: Int) throws -> PipeProject {
        let project = try makeProject(pipeline: pipeline)
        try project.writeHostsFile(host.hostsFileEntry(capacity: capacity))
        try makeFirstTest(of: "ReadingIDTests", take: 3, in: project)
        return project
    }

    func testASecondRunWaitsForTheOnlySlotOfAHost() throws {
        let project = try slowProject(capacity: 1)
        let first = try BackgroundPipe(["run", "app-intents"], in: project)
        let firstFolder = waitUntilTestsRun(in: project, layer: "logic")
        let second = try BackgroundPipe(["run", "app-intents"], in: project)
        let firstEnded = first.wait(timeout: 60)
        let secondEnded = second.wait(timeout: 60)
        XCTAssertEqual(firstEnded.exitCode, 0, firstEnded.combined)
        XCTAssertEqual(secondEnded.exitCode, 0, secondEnded.combined)
        XCTAssertTrue(secondEnded.stdout.contains("waiting for a free host slot"), secondEnded.stdout)
        let folders = project.runFolders()
        XCTAssertEqual(folders.count, 2)
        let a = try record(ofRun: try XCTUnwrap(firstFolder))
        let b = try record(ofRun: try XCTUnwrap(folders.first { $0 != firstFolder }))
        let aEnded = try XCTUnwrap(a["finishedAt"] as? String)
        let bAttempt = try XCTUnwrap(
            (layer("logic", in: b)?["attempts"] as? [[String: Any]])?.first?["startedAt"] as? String)
        XCTAssertGreaterThanOrEqual(bAttempt, aEnded, "the second run's layer began only after the first run ended")
    }

    func testTwoRunsOnOneHostNeverShareASimulator() throws {
        let project = try slowProject(capacity: 2)
        let first = try BackgroundPipe(["run", "app-intents"], in: project)
        let firstFolder = waitUntilTestsRun(in: project, layer: "logic")
        let second = try BackgroundPipe(["run", "app-intents"], in: project)
        XCTAssertEqual(first.wait(timeout: 60).exitCode, 0)
        let secondEnded = second.wait(timeout: 60)
        XCTAssertEqual(secondEnded.exitCode, 0, secondEnded.combined)
        // Two iPhone 15s (iOS 17.5 and 18.2): the second run takes the other one at once instead of waiting.
        XCTAssertFalse(secondEnded.stdout.contains("waiting for a free"), secondEnded.stdout)
        XCTAssertTrue(secondEnded.stdout.contains("is in use"), secondEnded.stdout)
        let records = try project.runFolders().map(record(ofRun:))
        let simulators = records.compactMap {
            (layer("logic", in: $0)?["attempts"] as? [[String: Any]])?.first?["simulatorUDID"] as? String
        }
        XCTAssertEqual(simulators.count, 2)
        XCTAssertNotEqual(simulators[0], simulators[1], "both runs used \(simulators[0]) at once")
        _ = firstFolder
    }
}
