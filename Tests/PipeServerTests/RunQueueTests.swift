import Foundation
import PipeBasics
import PipeCore
import PipeStore
import PipeTestSupport
import XCTest

/// The queue in a real SQLite run store: order, trigger keys, claims, requeue once, the controller lock, schedule
/// slots and watch heads.
final class RunQueueTests: XCTestCase {
    private var folder: TemporaryDirectory!
    private var store: SQLiteRunStore!
    private let start = Date(timeIntervalSince1970: 1_795_000_000)

    override func setUpWithError() throws {
        folder = try TemporaryDirectory(prefix: "pipe-queue")
        store = try SQLiteRunStore(location: folder.appending("pipe.db"))
    }

    override func tearDown() {
        folder?.remove()
        super.tearDown()
    }

    private func request(_ source: QueueSource, key: String? = nil, pipeline: String = "app-intents") -> QueueRequest {
        QueueRequest(pipeline: pipeline, source: source, requestedBy: "test \(source.rawValue)", triggerKey: key)
    }

    private func enqueue(_ source: QueueSource, at seconds: Double, key: String? = nil) throws -> String {
        try XCTUnwrap(try store.enqueue(request(source, key: key), at: start.addingTimeInterval(seconds)).queued?.runID)
    }

    private let other = RunOwner(hostname: "ci-1", pid: 4242, processStart: "boot:1")

    func testPeopleGoBeforeSchedulesAndEachPriorityIsFirstComeFirstServed() throws {
        let scheduled = try enqueue(.schedule, at: 0)
        let watched = try enqueue(.watch, at: 1)
        let manual = try enqueue(.manual, at: 2)
        let chat = try enqueue(.chat, at: 3)
        let laterManual = try enqueue(.manual, at: 4)
        XCTAssertEqual(try store.waitingRuns().map(\.runID), [manual, chat, laterManual, scheduled, watched])
        for id in [scheduled, manual, chat] { XCTAssertNotNil(RunID(id), "a run id, as the engine makes: \(id)") }
        let item = try XCTUnwrap(try store.queuedRun(chat))
        XCTAssertEqual(item.request.requestedBy, "test chat")
        XCTAssertEqual(item.state, .queued)
        XCTAssertEqual(item.enqueuedAt, start.addingTimeInterval(3))
    }

    func testTheWaitingPipelinesAreTheWaitingRunsInTheirOrder() throws {
        let scheduled = try enqueue(.schedule, at: 0)
        let manual = try enqueue(.manual, at: 1)
        let other = try XCTUnwrap(
            try store.enqueue(request(.chat, pipeline: "nightly"), at: start.addingTimeInterval(2)).queued?.runID)
        let taken = try enqueue(.manual, at: 3)
        XCTAssertTrue(try store.claim(runID: taken, owner: self.other, at: start))
        let heads = try store.waitingPipelines(limit: 10)
        XCTAssertEqual(heads.map(\.runID), try store.waitingRuns().map(\.runID))
        XCTAssertEqual(heads.map(\.runID), [manual, other, scheduled])
        XCTAssertEqual(heads.map(\.pipeline), ["app-intents", "nightly", "app-intents"])
        XCTAssertEqual(try store.waitingPipelines(limit: 2).map(\.runID), [manual, other])
    }

    func testATriggerKeyQueuesOnceEver() throws {
        let first = try enqueue(.watch, at: 0, key: "watch:app-intents:abc")
        XCTAssertEqual(
            try store.enqueue(request(.watch, key: "watch:app-intents:abc"), at: start.addingTimeInterval(5)),
            .alreadyTriggered(key: "watch:app-intents:abc", runID: first))
        // Even after the first ended, and from another store handle (another process's view).
        XCTAssertTrue(try store.claim(runID: first, owner: other, at: start))
        try store.finish(runID: first, state: .finished, problem: nil, at: start)
        let again = try SQLiteRunStore(location: folder.appending("pipe.db"))
        XCTAssertEqual(
            try again.enqueue(request(.watch, key: "watch:app-intents:abc"), at: start).queued, nil)
        XCTAssertEqual(try again.queueItems(states: nil, limit: 10).count, 1)
    }

    func testAClaimTakesAnItemOnceEvenFromManyThreads() throws {
        let id = try enqueue(.manual, at: 0)
        let stores = try (0..<8).map { _ in try SQLiteRunStore(location: folder.appending("pipe.db")) }
        let wins = NSLock()
        var winners: [Int] = []
        DispatchQueue.concurrentPerform(iterations: 8) { index in
            let owner = RunOwner(hostname: "ci-\(index)", pid: Int32(100 + index), processStart: nil)
            if (try? stores[index].claim(runID: id, owner: owner, at: start)) == true {
                wins.lock()
                winners.append(index)
                wins.unlock()
            }
        }
        XCTAssertEqual(winners.count, 1)
        let claimed = try XCTUnwrap(try store.queuedRun(id))
        XCTAssertEqual(claimed.state, .claimed)
        XCTAssertEqual(claimed.claimedBy?.hostname, "ci-\(winners[0])")
        XCTAssertEqual(try store.waitingRuns().count, 0)
        // Given back, it is waiting again in its place.
        try store.releaseClaim(runID: id)
        XCTAssertEqual(try store.waitingRuns().map(\.runID), [id])
    }

    func testClaimingSeveralTakesOnlyThoseStillQueuedAndNamesThem() throws {
        let first = try enqueue(.manual, at: 0)
        let taken = try enqueue(.manual, at: 1)
        let cancelled = try enqueue(.manual, at: 2)
        let third = try enqueue(.manual, at: 3)
        let waiting = try enqueue(.manual, at: 4)
        XCTAssertTrue(try store.claim(runID: taken, owner: other, at: start))
        XCTAssertTrue(try store.cancelQueued(runID: cancelled, reason: "test", at: start))
        let owner = RunOwner(hostname: "controller", pid: 77, processStart: "boot:2")
        let claimed = try store.claim(runIDs: [first, taken, cancelled, third], owner: owner, at: start)
        XCTAssertEqual(claimed, [first, third])
        XCTAssertEqual(try store.queuedRun(first)?.claimedBy, owner)
        XCTAssertEqual(try store.queuedRun(third)?.claimedBy, owner)
        XCTAssertEqual(try store.queuedRun(taken)?.claimedBy, other, "another owner's claim is left alone")
        XCTAssertEqual(try store.queuedRun(cancelled)?.state, .cancelled)
        XCTAssertEqual(try store.waitingRuns().map(\.runID), [waiting])
        XCTAssertEqual(try store.claim(runIDs: [], owner: owner, at: start), [])
    }

    func testAnInterruptedRunIsRequeuedOnceAheadOfLaterRequests() throws {
        let first = try enqueue(.schedule, at: 0, key: "schedule:nightly:1")
        let later = try enqueue(.schedule, at: 10)
        XCTAssertTrue(try store.claim(runID: first, owner: other, at: start))
        let copy = try XCTUnwrap(
            try store.requeueInterrupted(runID: first, problem: "its controller died", at: start.addingTimeInterval(20))
        )
        XCTAssertNotEqual(copy.runID, first)
        XCTAssertEqual(copy.attempt, 2)
        XCTAssertEqual(copy.requeueOf, first)
        XCTAssertNil(copy.request.triggerKey, "the key stays with the first attempt")
        XCTAssertEqual(try store.waitingRuns().map(\.runID), [copy.runID, later])
        let interrupted = try XCTUnwrap(try store.queuedRun(first))
        XCTAssertEqual(interrupted.state, .interrupted)
        XCTAssertEqual(interrupted.problem, "its controller died; requeued as run \(copy.runID)")
        // The copy interrupted too: not a third time.
        XCTAssertTrue(try store.claim(runID: copy.runID, owner: other, at: start))
        XCTAssertNil(try store.requeueInterrupted(runID: copy.runID, problem: "died again", at: start))
        XCTAssertEqual(try store.queuedRun(copy.runID)?.state, .interrupted)
        XCTAssertEqual(try store.waitingRuns().map(\.runID), [later])
    }

    func testCancelOnlyWhileWaiting() throws {
        let id = try enqueue(.manual, at: 0)
        XCTAssertTrue(try store.cancelQueued(runID: id, reason: "not needed", at: start))
        XCTAssertFalse(try store.claim(runID: id, owner: other, at: start), "a cancelled item is not taken")
        XCTAssertFalse(try store.cancelQueued(runID: id, reason: "again", at: start))
        XCTAssertThrowsError(try store.cancelQueued(runID: "20261129-000000-0000", reason: "x", at: start))
    }

    func testTheControllerLockAdmitsOneLiveControllerAndIsTakenFromADeadOne() throws {
        let me = RunOwner(hostname: "ci-1", pid: 10, processStart: "a")
        let you = RunOwner(hostname: "ci-1", pid: 11, processStart: "b")
        XCTAssertEqual(
            try store.acquireControllerLock(owner: me, configPath: "controller.yml", at: start) { _ in .alive },
            .acquired(recoveredFrom: nil))
        let held = try store.acquireControllerLock(owner: you, configPath: nil, at: start) { _ in .alive }
        guard case .held(let lock, .alive) = held else { return XCTFail("\(held)") }
        XCTAssertEqual(lock.owner, me)
        XCTAssertEqual(lock.configPath, "controller.yml")
        // On another machine: cannot be judged, so it is not taken.
        guard
            case .held(_, .unknown) = try store.acquireControllerLock(
                owner: you, configPath: nil, at: start, isOwnerAlive: { _ in .unknown })
        else { return XCTFail("a lock that cannot be judged is taken") }
        // Its holder died: taken over, naming the dead one.
        let taken = try store.acquireControllerLock(owner: you, configPath: nil, at: start) {
            $0 == me ? .dead : .alive
        }
        XCTAssertEqual(
            taken, .acquired(recoveredFrom: ControllerLock(owner: me, acquiredAt: start, configPath: "controller.yml")))
        XCTAssertFalse(try store.releaseControllerLock(owner: me), "only the holder gives it back")
        XCTAssertTrue(try store.releaseControllerLock(owner: you))
        XCTAssertNil(try store.controllerLock())
    }

    func testAScheduleSlotIsRecordedAndQueuedOnceAndNeverGoesBack() throws {
        let baseline = try store.scheduleState(name: "nightly", baseline: start)
        XCTAssertEqual(baseline.baseline, start)
        XCTAssertNil(baseline.lastSlot)
        XCTAssertEqual(try store.scheduleState(name: "nightly", baseline: start.addingTimeInterval(99)).baseline, start)
        let slot = start.addingTimeInterval(60)
        let fired = try XCTUnwrap(
            try store.recordScheduleSlot(name: "nightly", slot: slot, enqueue: request(.schedule), at: slot))
        XCTAssertEqual(fired.lastSlot, slot)
        let runID = try XCTUnwrap(fired.lastRunID)
        XCTAssertEqual(try store.waitingRuns().map(\.runID), [runID])
        // The same slot, or an earlier one, again (another life of the controller): nothing.
        XCTAssertNil(try store.recordScheduleSlot(name: "nightly", slot: slot, enqueue: request(.schedule), at: slot))
        XCTAssertNil(try store.recordScheduleSlot(name: "nightly", slot: start, enqueue: request(.schedule), at: slot))
        XCTAssertEqual(try store.waitingRuns().count, 1)
        // Skipped slots are recorded without a run.
        let skipped = try XCTUnwrap(
            try store.recordScheduleSlot(name: "nightly", slot: slot.addingTimeInterval(60), enqueue: nil, at: slot))
        XCTAssertNil(skipped.lastRunID)
        XCTAssertEqual(try store.scheduleStates().map(\.name), ["nightly"])
    }

    func testWatchHeadsAreKeptPerWatchAndBranch() throws {
        try store.recordWatchHead(WatchHead(watch: "main", branch: "main", sha: "a", seenAt: start))
        try store.recordWatchHead(WatchHead(watch: "main", branch: "release/1", sha: "b", seenAt: start))
        try store.recordWatchHead(
            WatchHead(watch: "main", branch: "main", sha: "c", seenAt: start.addingTimeInterval(1)))
        XCTAssertEqual(
            try store.watchHeads(),
            [
                WatchHead(watch: "main", branch: "main", sha: "c", seenAt: start.addingTimeInterval(1)),
                WatchHead(watch: "main", branch: "release/1", sha: "b", seenAt: start),
            ])
    }
}
