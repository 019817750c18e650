import Foundation
import PipeCore
import PipeStore
import XCTest

/// The append-only parts: sign-offs (the latest decides, all stay visible) and the log of events.
final class SignoffAndEventTests: StoreTestCase {
    func testSignoffsAreAppendedAndTheLatestDecidesTheManualLayer() throws {
        let store = try openStore()
        let runID = StoreFixtures.runID(20)
        try store.createRun(
            StoreFixtures.newRun(runID, layers: [("unit", .merge), ("release-checklist", .release)]),
            owner: StoreFixtures.owner())
        try store.finishLayer(runID: runID, layer: "unit", outcome: .passed, evidence: [], at: Date())
        try store.finishLayer(
            runID: runID, layer: "release-checklist", outcome: .awaitingSignoff, evidence: ["2 items"], at: Date())

        let t0 = StoreFixtures.epoch.addingTimeInterval(100)
        let rejected = try store.appendSignoff(
            SignoffRequest(
                runID: runID, layer: "release-checklist", decision: .rejected, signedBy: "erin",
                note: "dark mode contrast", at: t0))
        XCTAssertEqual(try store.run(runID)?.record.layers[1].outcome, .rejected)
        let signed = try store.appendSignoff(
            SignoffRequest(
                runID: runID, layer: "release-checklist", decision: .signedOff, signedBy: "frank", note: "fixed in 1.2",
                at: t0.addingTimeInterval(60)))
        XCTAssertGreaterThan(signed.id, rejected.id)

        let run = try XCTUnwrap(try store.run(runID))
        XCTAssertEqual(run.signoffs, [rejected, signed], "every sign-off stays visible, oldest first")
        XCTAssertEqual(run.signoffs.map(\.signedBy), ["erin", "frank"])
        XCTAssertEqual(run.signoffs[0].at, t0)
        XCTAssertEqual(run.record.layers[1].outcome, .signedOff, "the later sign-off supersedes")
        XCTAssertEqual(
            run.record.layers[1].evidence, ["signed-off by frank at 2026-11-18T11:09:20.000Z: fixed in 1.2"])
        XCTAssertEqual(try store.signoffs(runID: runID), [rejected, signed])

        // A sign-off never changes an automated layer's verdict.
        try store.appendSignoff(
            SignoffRequest(runID: runID, layer: "unit", decision: .rejected, signedBy: "mallory", at: t0))
        XCTAssertEqual(try store.run(runID)?.record.layers[0].outcome, .passed)
        XCTAssertEqual(try store.signoffs(runID: runID).count, 3)

        XCTAssertThrowsError(
            try store.appendSignoff(
                SignoffRequest(runID: runID, layer: "nope", decision: .signedOff, signedBy: "erin"))
        ) {
            XCTAssertEqual(
                $0 as? StoreError, .layerNotFound(runID: runID, layer: "nope", known: ["unit", "release-checklist"]))
        }
    }

    func testTheDatabaseItselfRefusesToRewriteSignoffsOrEvents() throws {
        let store = try openStore()
        let runID = StoreFixtures.runID(21)
        try store.createRun(
            StoreFixtures.newRun(runID, layers: [("checklist", .release)]), owner: StoreFixtures.owner())
        try store.appendSignoff(
            SignoffRequest(runID: runID, layer: "checklist", decision: .signedOff, signedBy: "erin"))
        try store.appendEvent(.init(type: "run-started"), runID: runID)

        // Another program (or a careless hand) with a raw connection cannot rewrite history either.
        let raw = try rawDatabase()
        for statement in [
            "UPDATE signoffs SET decision = 'rejected'", "DELETE FROM signoffs", "UPDATE events SET type = 'x'",
            "DELETE FROM events",
        ] {
            XCTAssertThrowsError(try raw.execute(statement), statement) {
                XCTAssertTrue(($0 as? SQLiteError)?.message.contains("append-only") ?? false, "\($0)")
            }
        }
        XCTAssertEqual(try count("signoffs", raw), 1)
        XCTAssertEqual(try count("events", raw), 1)
    }

    func testEventsComeBackInOrderAfterACursorAndByLayer() throws {
        let store = try openStore()
        let runID = StoreFixtures.runID(22)
        let other = StoreFixtures.runID(23)
        try store.createRun(StoreFixtures.newRun(runID), owner: StoreFixtures.owner())
        try store.createRun(StoreFixtures.newRun(other), owner: StoreFixtures.owner())

        let t0 = StoreFixtures.epoch
        var appended: [Int64] = []
        appended.append(
            try store.appendEvent(
                .init(type: "run-started", payload: #"{"pipeline":"app-intents"}"#, at: t0), runID: runID))
        appended += try store.appendEvents(
            [
                .init(type: "layer-started", layer: "unit", payload: #"{"attempt":1}"#, at: t0.addingTimeInterval(1)),
                .init(
                    type: "output", layer: "unit", payload: #""Test Suite 'All tests' started\n""#,
                    at: t0.addingTimeInterval(2)),
            ], runID: runID)
        try store.appendEvent(.init(type: "run-started", at: t0), runID: other)
        appended.append(
            try store.appendEvent(
                try .init(
                    type: "test-finished", layer: "ui",
                    encoding: TestCaseResult(identifier: "UI/testTap()", status: .passed),
                    at: t0.addingTimeInterval(3)),
                runID: runID))
        XCTAssertEqual(appended, appended.sorted())
        XCTAssertEqual(Set(appended).count, 4)

        let all = try store.events(runID: runID, after: 0, layer: nil, limit: 100)
        XCTAssertEqual(all.map(\.sequence), appended)
        XCTAssertEqual(all.map(\.type), ["run-started", "layer-started", "output", "test-finished"])
        XCTAssertEqual(all[2].payload, #""Test Suite 'All tests' started\n""#)
        XCTAssertEqual(all[3].payload, #"{"identifier":"UI/testTap()","status":"passed"}"#)
        XCTAssertEqual(
            all.map(\.at), [t0, t0.addingTimeInterval(1), t0.addingTimeInterval(2), t0.addingTimeInterval(3)])

        // A follower asks for what came after the last event it showed.
        XCTAssertEqual(
            try store.events(runID: runID, after: appended[1], layer: nil, limit: 100).map(\.type),
            ["output", "test-finished"])
        XCTAssertEqual(
            try store.events(runID: runID, after: appended[0], layer: nil, limit: 1).map(\.type), ["layer-started"])
        XCTAssertEqual(
            try store.events(runID: runID, after: 0, layer: "unit", limit: 100).map(\.type),
            ["layer-started", "output"])
        XCTAssertEqual(try store.events(runID: runID, after: appended[3], layer: nil, limit: 100), [])
    }

    func testAnEventThatIsNotJSONIsRefusedAndNothingOfItsBatchIsKept() throws {
        let store = try openStore()
        let runID = StoreFixtures.runID(24)
        try store.createRun(StoreFixtures.newRun(runID), owner: StoreFixtures.owner())
        XCTAssertThrowsError(
            try store.appendEvents(
                [.init(type: "ok", payload: "{}"), .init(type: "output", payload: "not json")], runID: runID)
        ) {
            guard case .invalidInput(let message)? = $0 as? StoreError else { return XCTFail("\($0)") }
            XCTAssertTrue(message.contains("'output' event") && message.contains("not valid JSON"), message)
        }
        XCTAssertEqual(try store.events(runID: runID, after: 0, layer: nil, limit: 10), [])
        let unknown = StoreFixtures.runID(25)
        XCTAssertThrowsError(try store.appendEvent(.init(type: "x"), runID: unknown)) {
            XCTAssertEqual($0 as? StoreError, .runNotFound(unknown))
        }
    }
}
