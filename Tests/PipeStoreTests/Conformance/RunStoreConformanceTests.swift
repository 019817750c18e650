import Foundation
import PipeBasics
import PipeCore
import PipeStore
import XCTest

/// Runs, layers, attempts, sign-offs, events, interruption, history, pruning and the audit log: the same answers
/// from both backends.
final class RunStoreConformanceTests: ConformanceTestCase {
    func testAWholeRunWrittenStepByStepReadsBackTheSame() throws {
        let runID = StoreFixtures.runID(1)
        let answers = try onBothBackends { store, backend -> [String] in
            try SimulatedRun.perform(store, runID: runID)
            let run = try XCTUnwrap(try store.run(runID), backend.rawValue)
            XCTAssertEqual(run.record.status, .finished, backend.rawValue)
            XCTAssertEqual(run.record.layers.map(\.tests.count), [10, 10], backend.rawValue)
            XCTAssertEqual(run.record.layers[0].attempts[0].artifacts.count, 3, backend.rawValue)
            let events = try store.events(runID: runID, after: 0, layer: nil, limit: 1_000)
            XCTAssertEqual(events.count, SimulatedRun.eventsPerRun, backend.rawValue)
            XCTAssertEqual(events.map(\.sequence), events.map(\.sequence).sorted(), backend.rawValue)
            let unitEvents = try store.events(runID: runID, after: events[2].sequence, layer: "unit", limit: 5)
            XCTAssertEqual(unitEvents.count, 5, backend.rawValue)
            XCTAssertTrue(unitEvents.allSatisfy { $0.layer == "unit" }, backend.rawValue)
            return [
                try StoreFixtures.json(run.record), "\(run.owner.map(\.description) ?? "")",
                "\(run.layerTimes.sorted { $0.key < $1.key }.map { [$0.key, "\($0.value)"] })",
                "\(run.runArtifacts)", "\(run.updatedAt)", "\(events.map { [$0.type, $0.layer ?? "", $0.payload] })",
                "\(unitEvents.map(\.type))",
            ]
        }
        assertSame(answers, "the run, its owner, times and events")
    }

    func testAWholeRecordCreatedAtOnceRoundTrips() throws {
        let runID = StoreFixtures.runID(2)
        var record = StoreFixtures.finishedRun(
            runID,
            tests: [
                TestCaseResult(identifier: "A/testOne()", status: .passed, durationSeconds: 0.5),
                TestCaseResult(
                    identifier: "A/testTwo()", status: .failed, failureMessage: "XCTAssertEqual failed: (\"1\")",
                    failureLocation: "A.swift:12", target: "ATests"),
            ],
            artifacts: [ArtifactRecord(kind: .log, path: "artifacts/\(runID)/unit/xcodebuild.log", bytes: 12)])
        record.host = .init(name: "mac-1", endpoint: "ci@127.0.0.1:22", keyType: "ssh-ed25519", fingerprint: "SHA256:x")
        record.problem = "a quote ' and a question mark ? and a dollar $1 stay text"
        let expected = try StoreFixtures.json(record)
        let answers = try onBothBackends { store, backend -> String in
            try store.createRun(record, owner: StoreFixtures.owner())
            let stored = try StoreFixtures.json(try XCTUnwrap(try store.run(runID)).record)
            XCTAssertEqual(stored, expected, backend.rawValue)
            return stored
        }
        assertSame(answers, "the stored record")
    }

    func testListingFilteringAndResolvingIDs() throws {
        let ids = (0..<6).map { StoreFixtures.runID(100 + $0 * 61) }
        let answers = try onBothBackends { store, backend -> [String] in
            for (index, runID) in ids.enumerated() {
                var record = StoreFixtures.finishedRun(
                    runID, pipeline: index % 2 == 0 ? "app-intents" : "release",
                    status: index == 5 ? .cancelled : .finished)
                record.exitCode = index == 5 ? 1 : 0
                try store.createRun(record, owner: StoreFixtures.owner())
            }
            let all = try store.listRuns(RunFilter())
            XCTAssertEqual(all.map(\.runID), ids.reversed(), "newest first on \(backend.rawValue)")
            let release = try store.listRuns(RunFilter(pipeline: "release", limit: 2))
            XCTAssertEqual(release.map(\.runID), [ids[5], ids[3]], backend.rawValue)
            let failed = try store.listRuns(RunFilter(statuses: [.cancelled]))
            XCTAssertEqual(failed.map(\.runID), [ids[5]], backend.rawValue)
            let since = try store.listRuns(RunFilter(since: RunID(ids[4])?.startTime))
            XCTAssertEqual(since.count, 2, backend.rawValue)
            XCTAssertEqual(try store.resolveRunID("last"), ids[5], backend.rawValue)
            XCTAssertEqual(try store.resolveRunID(String(ids[2].prefix(18))), ids[2], backend.rawValue)
            XCTAssertEqual(try store.runIDs(withPrefix: "2026", limit: 3).count, 3, backend.rawValue)
            XCTAssertEqual(try store.runIDs(withPrefix: "20%", limit: 3), [], "no pattern characters")
            XCTAssertEqual(try store.runIDs(withPrefix: "'; DROP TABLE runs; --", limit: 3), [])
            return [
                "\(all)", "\(release)", "\(failed)", "\(since)", "\(try store.runIDs(withPrefix: "", limit: 100))",
                "\(try store.listRuns(RunFilter(limit: 0)))",
            ]
        }
        assertSame(answers, "the listings")
    }

    func testRefusalsAreTheSame() throws {
        let runID = StoreFixtures.runID(3)
        let answers = try onBothBackends { store, backend -> [String] in
            var refusals: [String] = []
            func refusal(_ body: () throws -> Void) {
                do {
                    try body()
                    XCTFail("no refusal on \(backend.rawValue)")
                } catch let error as StoreError {
                    refusals.append(error.description)
                } catch {
                    XCTFail("on \(backend.rawValue), not a StoreError: \(error)")
                }
            }
            refusal { try store.updateRun(runID, RunUpdate(status: .finished)) }
            try store.createRun(StoreFixtures.newRun(runID), owner: StoreFixtures.owner())
            refusal { try store.createRun(StoreFixtures.newRun(runID), owner: StoreFixtures.owner()) }
            refusal { try store.startLayer(runID: runID, layer: "nope", at: Date()) }
            let attempt = RunRecord.AttemptRecord(attempt: 1, startedAt: StoreFixtures.timestamp(Date()))
            try store.startAttempt(attempt, runID: runID, layer: "unit")
            refusal { try store.startAttempt(attempt, runID: runID, layer: "unit") }
            refusal { try store.recordTestResults([], runID: runID, layer: "ui", attempt: 1) }
            refusal {
                try store.appendEvent(.init(type: "broken", payload: "{not json", at: Date()), runID: runID)
            }
            refusal { try store.createRun(StoreFixtures.newRun("not-a-run-id"), owner: StoreFixtures.owner()) }
            refusal {
                try store.recordArtifacts(
                    [ArtifactRecord(kind: .log, path: "", bytes: 1)], runID: runID, layer: nil, attempt: nil)
            }
            refusal { _ = try store.prune(PrunePolicy()) }
            XCTAssertEqual(refusals.count, 9, backend.rawValue)
            return refusals
        }
        assertSame(answers, "the refusals")
    }

    func testSignoffsEventsAndCancellation() throws {
        let runID = StoreFixtures.runID(4)
        let answers = try onBothBackends { store, backend -> [String] in
            try store.createRun(
                StoreFixtures.newRun(runID, layers: [("unit", .merge), ("release-checklist", .release)]),
                owner: StoreFixtures.owner())
            try store.finishLayer(
                runID: runID, layer: "release-checklist", outcome: .awaitingSignoff, evidence: ["2 items"],
                at: StoreFixtures.epoch)
            let rejected = try store.appendSignoff(
                SignoffRequest(
                    runID: runID, layer: "release-checklist", decision: .rejected, signedBy: "erin", note: "contrast",
                    at: StoreFixtures.epoch.addingTimeInterval(10)))
            let signed = try store.appendSignoff(
                SignoffRequest(
                    runID: runID, layer: "release-checklist", decision: .signedOff, signedBy: "frank",
                    at: StoreFixtures.epoch.addingTimeInterval(20)))
            XCTAssertGreaterThan(signed.id, rejected.id, backend.rawValue)
            let run = try XCTUnwrap(try store.run(runID))
            XCTAssertEqual(run.record.layers[1].outcome, .signedOff, backend.rawValue)
            let first = try store.requestCancellation(
                runID: runID, reason: "wrong branch", requestedBy: "erin", at: StoreFixtures.epoch)
            let second = try store.requestCancellation(
                runID: runID, reason: "again", requestedBy: "frank", at: StoreFixtures.epoch)
            XCTAssertEqual(first, .requested, backend.rawValue)
            return [
                "\(run.signoffs)", "\(run.record.layers[1].evidence)", "\(second)",
                "\(try store.cancellationRequest(runID: runID).map { [$0.reason, $0.requestedBy] } ?? [])",
                "\(try store.listRuns(RunFilter()).map(\.cancellationRequested))",
            ]
        }
        assertSame(answers, "sign-offs and cancellation")
    }

    func testADeadOwnersRunIsInterruptedAndItsFolderLeftForCleanUp() throws {
        let runID = StoreFixtures.runID(5)
        let ended = StoreFixtures.runID(6)
        let answers = try onBothBackends { store, backend -> [String] in
            let owner = RunOwner(hostname: "other-machine", pid: 4242, processStart: nil)
            try store.createRun(StoreFixtures.newRun(runID), owner: owner)
            try store.updateRun(
                runID,
                RunUpdate(
                    host: .init(name: "mac-1", endpoint: "ci@m:22", keyType: "ssh-ed25519", fingerprint: "SHA256:x"),
                    remoteRunFolder: "pipe-work/runs/\(runID)"))
            let start = try XCTUnwrap(RunID(runID)?.startTime)
            try store.startAttempt(
                .init(attempt: 1, startedAt: StoreFixtures.timestamp(start.addingTimeInterval(2))), runID: runID,
                layer: "unit")
            var finished = StoreFixtures.finishedRun(ended)
            finished.remoteRunFolder = "pipe-work/runs/\(ended)"
            try store.createRun(finished, owner: owner)

            XCTAssertEqual(try store.markInterruptedRuns(at: Date()) { _ in .alive }, [], backend.rawValue)
            let marked = try store.markInterruptedRuns(at: StoreFixtures.epoch.addingTimeInterval(7_200)) { _ in
                .dead
            }
            XCTAssertEqual(marked.map(\.runID), [runID], backend.rawValue)
            XCTAssertThrowsError(try store.updateRun(runID, RunUpdate(status: .finished))) {
                XCTAssertEqual($0 as? StoreError, .runInterrupted(runID), backend.rawValue)
            }
            let run = try XCTUnwrap(try store.run(runID))
            XCTAssertEqual(run.record.status, .interrupted, backend.rawValue)
            XCTAssertEqual(run.record.layers.map(\.outcome), [.cancelled, .cancelled], backend.rawValue)
            let attempt = run.record.layers[0].attempts[0]
            XCTAssertEqual(attempt.outcome, .cancelled, backend.rawValue)
            XCTAssertEqual(attempt.evidence.count, 1, backend.rawValue)
            let events = try store.events(runID: runID, after: 0, layer: nil, limit: 10)
            XCTAssertEqual(events.map(\.type), ["run-interrupted"], backend.rawValue)
            let cleanups = try store.pendingRemoteCleanups()
            XCTAssertEqual(cleanups.map(\.runID), [runID, ended].sorted(), backend.rawValue)
            try store.markRemoteFolderCleaned(runID: ended, at: Date())
            return [
                "\(marked.map { [$0.runID, $0.pipeline, $0.cancelledLayers.description, "\($0.lastActivity)"] })",
                try StoreFixtures.json(run.record), "\(run.interruptedAt.map { "\($0)" } ?? "")",
                "\(attempt.durationSeconds ?? -1)", "\(try store.pendingRemoteCleanups())",
            ]
        }
        assertSame(answers, "the interruption")
    }

    func testPruningAndHistory() throws {
        let ids = (0..<7).map { StoreFixtures.runID(1_000 + $0 * 60) }
        let running = StoreFixtures.runID(5_000)
        let answers = try onBothBackends { store, backend -> [String] in
            for (index, runID) in ids.enumerated() {
                let passes = index % 2 == 0
                try store.createRun(
                    StoreFixtures.finishedRun(
                        runID, commit: index < 4 ? "c0ffee" : "beef",
                        tests: [
                            TestCaseResult(identifier: "A/testFlaky()", status: passes ? .passed : .failed),
                            TestCaseResult(identifier: "A/testSteady()", status: .passed),
                        ],
                        artifacts: [ArtifactRecord(kind: .log, path: "artifacts/\(runID)/log", bytes: 3)]),
                    owner: StoreFixtures.owner())
            }
            try store.createRun(StoreFixtures.newRun(running), owner: StoreFixtures.owner())
            let history = try store.testHistory(identifier: "A/testFlaky()", pipeline: nil, limit: 4)
            XCTAssertEqual(history.count, 4, backend.rawValue)
            let flaky = try store.flakyTests(pipeline: "app-intents", since: nil)
            XCTAssertEqual(flaky.map(\.commit), ["beef", "c0ffee"], backend.rawValue)
            let dryRun = try store.prune(PrunePolicy(keepLatest: 3, dryRun: true))
            let pruned = try store.prune(PrunePolicy(keepLatest: 3))
            // The running run is never pruned, nor counted among the kept.
            XCTAssertEqual(pruned.removed.map(\.runID), Array(ids.prefix(4)), "keeps the newest 3 of 7 on \(backend)")
            XCTAssertEqual(try store.listRuns(RunFilter()).count, 4, backend.rawValue)
            return ["\(history)", "\(flaky)", "\(dryRun)", "\(pruned)", "\(try store.listRuns(RunFilter()))"]
        }
        assertSame(answers, "history and pruning")
    }

    func testTheAuditLog() throws {
        let answers = try onBothBackends { store, backend -> String in
            try store.appendAudit(source: "chat", entry: #"{"command":"run"}"#, at: StoreFixtures.epoch)
            try store.appendAudit(source: "forge", entry: #"{"event":"push"}"#, at: StoreFixtures.epoch)
            try store.appendAudit(source: "chat", entry: #"{"command":"cancel"}"#, at: StoreFixtures.epoch)
            let chat = try store.auditEntries(source: "chat", limit: 10)
            XCTAssertEqual(chat.map(\.entry), [#"{"command":"cancel"}"#, #"{"command":"run"}"#], backend.rawValue)
            XCTAssertEqual(try store.auditEntries(source: nil, limit: 2).count, 2, backend.rawValue)
            return "\(chat)"
        }
        assertSame(answers, "the audit log")
    }
}
