import Foundation
import PipeBasics
import PipeCore
import PipeStore
import XCTest

/// A run written step by step as the engine does, read back whole; and the errors of writing a run wrongly.
final class RunLifecycleTests: StoreTestCase {
    func testFullRunRoundTripsToTheSameRecord() throws {
        let store = try openStore()
        let runID = StoreFixtures.runID(10)
        let start = try XCTUnwrap(RunID(runID)?.startTime)
        func at(_ seconds: Double) -> String { StoreFixtures.timestamp(start.addingTimeInterval(seconds)) }

        // The engine's record, changed exactly as each store call changes the stored run.
        var expected = StoreFixtures.newRun(
            runID, layers: [("unit", .merge), ("ui", .merge), ("release-checklist", .release)])
        expected.layers[1].needs = ["unit"]
        try store.createRun(expected, owner: StoreFixtures.owner())

        expected.commit = "0123456789abcdef0123456789abcdef01234567"
        expected.resolvedRef = "refs/heads/main"
        try store.updateRun(runID, RunUpdate(commit: expected.commit, resolvedRef: expected.resolvedRef))

        let simulator = Simulator(
            udid: "90052AC6-1111-2222-3333-444455556666", name: "iPhone 15",
            runtimeIdentifier: "com.apple.CoreSimulator.SimRuntime.iOS-17-5",
            runtimeName: "iOS 17.5", platform: "iOS", runtimeVersion: "17.5", state: "Shutdown")
        expected.host = .init(
            name: "mac-1", endpoint: "ci@127.0.0.1:2222", keyType: "ssh-ed25519", fingerprint: "SHA256:q1w2e3")
        expected.xcode = "Xcode 16.2 (16C5032a)"
        expected.simulator = SimulatorChoice(simulator: simulator, reason: "first iPhone 15 on iOS 17.5")
        expected.remoteRunFolder = "pipe-work/runs/\(runID)"
        try store.updateRun(runID, RunUpdate(runFieldsOf: expected))

        // Layer "unit": an infrastructure failure, then a pass on another simulator; tests streamed one by one,
        // then the final list (which restates them) written again.
        try store.startLayer(runID: runID, layer: "unit", at: start.addingTimeInterval(10))
        var first = RunRecord.AttemptRecord(attempt: 1, simulatorUDID: simulator.udid, startedAt: at(10))
        try store.startAttempt(first, runID: runID, layer: "unit")
        try store.recordTestResults(
            [TestCaseResult(identifier: "ReadingIDTests/testTrims()", status: .failed, failureMessage: "lost")],
            runID: runID, layer: "unit", attempt: 1)
        first.outcome = .infrastructure
        first.evidence = ["connection to mac-1 dropped"]
        first.exit = "lost"
        first.finishedAt = at(40)
        first.durationSeconds = 30
        try store.finishAttempt(first, runID: runID, layer: "unit")

        let tests = [
            TestCaseResult(identifier: "ReadingIDTests/testTrims()", status: .passed, durationSeconds: 0.012),
            TestCaseResult(
                identifier: "ReadingIDTests/testRejectsInnerSpace()", status: .passed, durationSeconds: 0.004),
            TestCaseResult(identifier: "IntentTests/testPerform()", status: .skipped),
        ]
        var second = RunRecord.AttemptRecord(attempt: 2, simulatorUDID: "UDID-2", startedAt: at(41))
        try store.startAttempt(second, runID: runID, layer: "unit")
        for test in tests { try store.recordTestResults([test], runID: runID, layer: "unit", attempt: 2) }
        try store.recordTestResults(tests, runID: runID, layer: "unit", attempt: 2)
        second.outcome = .passed
        second.evidence = ["** TEST SUCCEEDED **"]
        second.exit = "0"
        second.finishedAt = at(100)
        second.durationSeconds = 59.5
        second.facts = ["processGroup": "31337", "resultBundle": "pipe-work/runs/\(runID)/artifacts/x.xcresult"]
        second.artifacts = [
            ArtifactRecord(kind: .exitCode, path: "artifacts/\(runID)/unit/attempt-2/exit-code", bytes: 2),
            ArtifactRecord(kind: .log, path: "artifacts/\(runID)/unit/attempt-2/xcodebuild.log", bytes: 4096),
            ArtifactRecord(
                kind: .resultBundle, path: "artifacts/\(runID)/unit/attempt-2/Reader.xcresult", bytes: 81920,
                sha256: String(repeating: "ab", count: 32)),
            screenshot(runID),
        ]
        try store.finishAttempt(second, runID: runID, layer: "unit")
        try store.finishLayer(
            runID: runID, layer: "unit", outcome: .passed, evidence: ["** TEST SUCCEEDED **"],
            at: start.addingTimeInterval(100))
        expected.layers[0].attempts = [first, second]
        expected.layers[0].tests = tests
        expected.layers[0].outcome = .passed
        expected.layers[0].evidence = ["** TEST SUCCEEDED **"]

        // Layer "ui" is skipped; the checklist waits for a sign-off.
        try store.finishLayer(
            runID: runID, layer: "ui", outcome: .skipped, evidence: ["needs unit (tests-failed), which did not pass"],
            at: start.addingTimeInterval(101))
        expected.layers[1].outcome = .skipped
        expected.layers[1].evidence = ["needs unit (tests-failed), which did not pass"]
        try store.finishLayer(
            runID: runID, layer: "release-checklist", outcome: .awaitingSignoff, evidence: ["3 items to check"],
            at: start.addingTimeInterval(102))
        expected.layers[2].outcome = .awaitingSignoff
        expected.layers[2].evidence = ["3 items to check"]

        let summary = ArtifactRecord(kind: .other, path: "artifacts/\(runID)/summary.json", bytes: 2048)
        try store.recordArtifacts([summary], runID: runID, layer: nil, attempt: nil)
        expected.status = .finished
        expected.finishedAt = at(103)
        expected.durationSeconds = 103.25
        expected.exitCode = 0
        try store.updateRun(
            runID,
            RunUpdate(status: .finished, finishedAt: expected.finishedAt, durationSeconds: 103.25, exitCode: 0))

        let stored = try XCTUnwrap(try store.run(runID))
        XCTAssertEqual(try StoreFixtures.json(stored.record), try StoreFixtures.json(expected))
        XCTAssertEqual(stored.owner, RunOwner.current())
        XCTAssertEqual(stored.runArtifacts, [summary])
        XCTAssertEqual(stored.allArtifacts.count, 5)
        XCTAssertEqual(stored.allArtifacts.compactMap(\.attachment), [screenshot(runID).attachment], "kept whole")
        XCTAssertEqual(stored.layerTimes["unit"]?.startedAt, start.addingTimeInterval(10))
        XCTAssertEqual(stored.layerTimes["unit"]?.finishedAt, start.addingTimeInterval(100))
        XCTAssertEqual(stored.layerTimes["ui"]?.startedAt, nil, "a skipped layer never began")
        XCTAssertNil(stored.cancellation)
        XCTAssertNil(stored.interruptedAt)

        // The first attempt kept its own (failed) result: it is history, not the layer's tests.
        let history = try store.testHistory(identifier: "ReadingIDTests/testTrims()", pipeline: nil, limit: 10)
        XCTAssertEqual(history.map(\.status), [.passed, .failed])
        XCTAssertEqual(history.map(\.attempt), [2, 1])

        let listed = try XCTUnwrap(try store.listRuns(RunFilter()).first)
        XCTAssertEqual(listed.runID, runID)
        XCTAssertEqual(listed.status, .finished)
        XCTAssertEqual(listed.commit, expected.commit)
        XCTAssertEqual(listed.hostName, "mac-1")
        XCTAssertEqual(listed.exitCode, 0)
        XCTAssertEqual(listed.durationSeconds, 103.25)
        XCTAssertEqual(listed.layers.map(\.outcome), [.passed, .skipped, .awaitingSignoff])
    }

    func testCreatingFromACompleteRecordStoresEverythingInIt() throws {
        let store = try openStore()
        let runID = StoreFixtures.runID(11)
        let record = StoreFixtures.finishedRun(
            runID,
            tests: [
                TestCaseResult(identifier: "A/testOne()", status: .passed, durationSeconds: 1.5),
                TestCaseResult(
                    identifier: "A/testTwo()", status: .failed, durationSeconds: 0.25,
                    failureMessage: "XCTAssertEqual failed",
                    failureLocation: "ATests.swift:42"),
            ],
            artifacts: [ArtifactRecord(kind: .log, path: "artifacts/\(runID)/unit/log", bytes: 10, sha256: "00ff")])
        try store.createRun(record, owner: StoreFixtures.owner())
        XCTAssertEqual(try StoreFixtures.json(XCTUnwrap(try store.run(runID)).record), try StoreFixtures.json(record))
    }

    func testUpdateKeepsTheFieldsItDoesNotSet() throws {
        let store = try openStore()
        let runID = StoreFixtures.runID(12)
        try store.createRun(StoreFixtures.newRun(runID, commit: "abc"), owner: StoreFixtures.owner())
        try store.updateRun(runID, RunUpdate(xcode: "Xcode 16.2"))
        try store.updateRun(runID, RunUpdate(problem: "checkout failed"))
        let record = try XCTUnwrap(try store.run(runID)).record
        XCTAssertEqual(record.commit, "abc")
        XCTAssertEqual(record.xcode, "Xcode 16.2")
        XCTAssertEqual(record.problem, "checkout failed")
        XCTAssertEqual(record.status, .running)
    }

    func testTimestampsWithoutMillisecondsAreStoredInTheStoreForm() throws {
        let store = try openStore()
        let runID = StoreFixtures.runID(13)
        var record = StoreFixtures.newRun(runID)
        record.startedAt = "2026-11-18T10:00:00Z"
        try store.createRun(record, owner: StoreFixtures.owner())
        XCTAssertEqual(try store.run(runID)?.record.startedAt, "2026-11-18T10:00:00.000Z")
    }

    func testWritingWronglyIsRefusedWithTheReason() throws {
        let store = try openStore()
        let runID = StoreFixtures.runID(14)
        let unknown = StoreFixtures.runID(15)
        try store.createRun(StoreFixtures.newRun(runID), owner: StoreFixtures.owner())

        XCTAssertThrowsError(try store.createRun(StoreFixtures.newRun(runID), owner: StoreFixtures.owner())) {
            XCTAssertEqual($0 as? StoreError, .runExists(runID))
        }
        XCTAssertThrowsError(try store.updateRun(unknown, RunUpdate(status: .finished))) {
            XCTAssertEqual($0 as? StoreError, .runNotFound(unknown))
            XCTAssertTrue("\($0)".contains("pipe runs list"), "\($0)")
        }
        XCTAssertThrowsError(try store.startLayer(runID: runID, layer: "lint", at: Date())) {
            XCTAssertEqual($0 as? StoreError, .layerNotFound(runID: runID, layer: "lint", known: ["unit", "ui"]))
            XCTAssertTrue("\($0)".contains("its layers: unit, ui"), "\($0)")
        }
        XCTAssertThrowsError(
            try store.recordTestResults(
                [TestCaseResult(identifier: "T/t()", status: .passed)], runID: runID, layer: "unit", attempt: 1)
        ) {
            XCTAssertEqual($0 as? StoreError, .attemptNotFound(runID: runID, layer: "unit", attempt: 1))
        }
        let attempt = RunRecord.AttemptRecord(attempt: 1, startedAt: StoreFixtures.timestamp(Date()))
        try store.startAttempt(attempt, runID: runID, layer: "unit")
        XCTAssertThrowsError(try store.startAttempt(attempt, runID: runID, layer: "unit")) {
            XCTAssertEqual($0 as? StoreError, .attemptExists(runID: runID, layer: "unit", attempt: 1))
        }
        XCTAssertThrowsError(
            try store.startAttempt(.init(attempt: 2, startedAt: "yesterday"), runID: runID, layer: "unit")
        ) {
            guard case .invalidInput(let message)? = $0 as? StoreError else { return XCTFail("\($0)") }
            XCTAssertTrue(message.contains("'yesterday' is not a UTC time"), message)
        }
        XCTAssertThrowsError(
            try store.recordArtifacts(
                [ArtifactRecord(kind: .log, path: "x", bytes: -1)], runID: runID, layer: "unit", attempt: nil)
        ) {
            guard case .invalidInput(let message)? = $0 as? StoreError else { return XCTFail("\($0)") }
            XCTAssertTrue(message.contains("negative size"), message)
        }
        var badID = StoreFixtures.newRun(runID)
        badID.runID = "run-1"
        XCTAssertThrowsError(try store.createRun(badID, owner: StoreFixtures.owner())) {
            guard case .invalidInput(let message)? = $0 as? StoreError else { return XCTFail("\($0)") }
            XCTAssertTrue(message.contains("'run-1' is not a Pipe run id"), message)
        }
        // Nothing of the refused writes was kept.
        XCTAssertEqual(try store.run(runID)?.record.layers[0].attempts.count, 1)
        XCTAssertEqual(try store.listRuns(RunFilter()).count, 1)
    }

    func testListFiltersByPipelineStatusAndStartAndResolvesTypedIDs() throws {
        let store = try openStore()
        let ids = (0..<5).map { StoreFixtures.runID(3600 * $0) }
        try store.createRun(StoreFixtures.finishedRun(ids[0], pipeline: "app-intents"), owner: StoreFixtures.owner())
        try store.createRun(StoreFixtures.finishedRun(ids[1], pipeline: "widgets"), owner: StoreFixtures.owner())
        try store.createRun(
            StoreFixtures.finishedRun(ids[2], pipeline: "app-intents", status: .cancelled), owner: StoreFixtures.owner()
        )
        try store.createRun(StoreFixtures.newRun(ids[3], pipeline: "app-intents"), owner: StoreFixtures.owner())
        try store.createRun(StoreFixtures.newRun(ids[4], pipeline: "widgets"), owner: StoreFixtures.owner())

        XCTAssertEqual(try store.listRuns(RunFilter()).map(\.runID), ids.reversed())
        XCTAssertEqual(try store.listRuns(RunFilter(pipeline: "widgets")).map(\.runID), [ids[4], ids[1]])
        XCTAssertEqual(try store.listRuns(RunFilter(statuses: [.running])).map(\.runID), [ids[4], ids[3]])
        XCTAssertEqual(
            try store.listRuns(RunFilter(pipeline: "app-intents", statuses: [.finished, .cancelled])).map(\.runID),
            [ids[2], ids[0]])
        let since = StoreFixtures.epoch.addingTimeInterval(3600 * 2)
        XCTAssertEqual(try store.listRuns(RunFilter(since: since)).map(\.runID), [ids[4], ids[3], ids[2]])
        XCTAssertEqual(try store.listRuns(RunFilter(limit: 2)).map(\.runID), [ids[4], ids[3]])

        XCTAssertEqual(try store.resolveRunID("last"), ids[4])
        XCTAssertEqual(try store.resolveRunID(ids[2]), ids[2])
        XCTAssertEqual(try store.resolveRunID(String(ids[2].prefix(13))), ids[2], "a unique prefix")
        XCTAssertThrowsError(try store.resolveRunID(String(ids[0].prefix(8)))) {
            guard case .ambiguous(_, let matches)? = $0 as? RunIDLookupError else { return XCTFail("\($0)") }
            XCTAssertEqual(matches.count, 5)
        }
        XCTAssertThrowsError(try store.resolveRunID("1999")) {
            XCTAssertEqual($0 as? RunIDLookupError, .notFound("1999"))
        }
        XCTAssertEqual(try store.runIDs(withPrefix: "2026*", limit: 10), [], "pattern characters match nothing")
    }

    /// A failing test's screenshot with its facts, which the store keeps with the artifact.
    private func screenshot(_ runID: String) -> ArtifactRecord {
        var artifact = ArtifactRecord(
            kind: .attachment, path: "artifacts/\(runID)/unit/attempt-2/R.xcresult.evidence/attachments/A1.png",
            bytes: 73, sha256: String(repeating: "cd", count: 32))
        artifact.attachment = AttachmentFacts(
            testIdentifier: "IntentTests/testPerform()", name: "screen_0_A1.png", claimedType: "image/png",
            detectedType: "image/png", associatedWithFailure: true)
        return artifact
    }
}
