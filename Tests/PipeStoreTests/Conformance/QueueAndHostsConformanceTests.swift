import Foundation
import PipeBasics
import PipeCore
import PipeStore
import XCTest

/// The controller's tables (queue, lock, schedules, watches), host leases and health, and the forge tables
/// (deliveries, outbox, objects, approvals): the same answers from both backends.
final class QueueAndHostsConformanceTests: ConformanceTestCase {
    private let start = StoreFixtures.epoch
    private let controller = RunOwner(hostname: "ci-1", pid: 4242, processStart: "boot:1")
    private let otherController = RunOwner(hostname: "ci-2", pid: 77, processStart: nil)

    private func request(_ source: QueueSource, key: String? = nil, pipeline: String = "app-intents")
        -> QueueRequest
    {
        QueueRequest(pipeline: pipeline, source: source, requestedBy: "test \(source.rawValue)", triggerKey: key)
    }

    func testTheQueueOrdersClaimsOnceFinishesAndRequeues() throws {
        let answers = try onBothBackends { store, backend -> [String] in
            let enqueue = { (source: QueueSource, seconds: Double, key: String?) throws -> String in
                try XCTUnwrap(
                    try store.enqueue(self.request(source, key: key), at: self.start.addingTimeInterval(seconds))
                        .queued?.runID, backend.rawValue)
            }
            let scheduled = try enqueue(.schedule, 0, nil)
            let watched = try enqueue(.watch, 1, "watch:app-intents:abc")
            let manual = try enqueue(.manual, 2, nil)
            let chat = try enqueue(.chat, 3, nil)
            XCTAssertEqual(
                try store.waitingRuns().map(\.runID), [manual, chat, scheduled, watched], backend.rawValue)
            XCTAssertEqual(
                try store.enqueue(request(.watch, key: "watch:app-intents:abc"), at: start),
                .alreadyTriggered(key: "watch:app-intents:abc", runID: watched), backend.rawValue)
            XCTAssertTrue(try store.claim(runID: manual, owner: controller, at: start), backend.rawValue)
            XCTAssertFalse(try store.claim(runID: manual, owner: otherController, at: start), "claimed once")
            XCTAssertEqual(
                try store.claim(runIDs: [manual, chat], owner: otherController, at: start), [chat], backend.rawValue)
            try store.releaseClaim(runID: chat)
            XCTAssertEqual(try store.queuedRun(chat)?.state, .queued, backend.rawValue)
            try store.finish(runID: manual, state: .finished, problem: nil, at: start.addingTimeInterval(9))
            XCTAssertTrue(try store.cancelQueued(runID: scheduled, reason: "not today", at: start), backend.rawValue)
            XCTAssertTrue(try store.claim(runID: watched, owner: controller, at: start), backend.rawValue)
            let again = try XCTUnwrap(
                try store.requeueInterrupted(runID: watched, problem: "controller died", at: start), backend.rawValue)
            XCTAssertEqual(again.requeueOf, watched, backend.rawValue)
            XCTAssertNil(
                try store.requeueInterrupted(runID: watched, problem: "again", at: start), "requeued once only")
            let items = try store.queueItems(states: nil, limit: 100)
            let names = [
                scheduled: "scheduled", watched: "watched", manual: "manual", chat: "chat", again.runID: "again",
            ]
            return items.map { item in
                [
                    names[item.runID] ?? "?", item.state.rawValue, "\(item.priority)", "\(item.attempt)",
                    item.requeueOf.flatMap { names[$0] } ?? "-", item.claimedBy?.hostname ?? "-",
                    item.problem.map { $0.replacingOccurrences(of: again.runID, with: "again") } ?? "-",
                    "\(item.finishedAt.map { "\($0)" } ?? "-")",
                ].joined(separator: " ")
            }
        }
        assertSame(answers, "the queue")
    }

    func testTheControllerLockSchedulesAndWatchHeads() throws {
        let answers = try onBothBackends { store, backend -> [String] in
            let first = try store.acquireControllerLock(
                owner: controller, configPath: "/etc/pipe/controller.yml", at: start
            ) { _ in .alive }
            XCTAssertEqual(first, .acquired(recoveredFrom: nil), backend.rawValue)
            let refused = try store.acquireControllerLock(
                owner: otherController, configPath: nil, at: start
            ) { _ in .alive }
            let takenOver = try store.acquireControllerLock(
                owner: otherController, configPath: nil, at: start.addingTimeInterval(5)
            ) { _ in .dead }
            XCTAssertFalse(try store.releaseControllerLock(owner: controller), "no longer the holder")
            let holder = try store.controllerLock()
            XCTAssertTrue(try store.releaseControllerLock(owner: otherController), backend.rawValue)
            XCTAssertNil(try store.controllerLock(), backend.rawValue)

            let baseline = try store.scheduleState(name: "nightly", baseline: start)
            let slot = start.addingTimeInterval(60)
            let fired = try store.recordScheduleSlot(
                name: "nightly", slot: slot, enqueue: request(.schedule, pipeline: "nightly"), at: slot)
            XCTAssertNotNil(fired?.lastRunID, backend.rawValue)
            XCTAssertNil(
                try store.recordScheduleSlot(name: "nightly", slot: slot, enqueue: request(.schedule), at: slot),
                "a slot fires once")
            try store.recordWatchHead(WatchHead(watch: "main", branch: "main", sha: "aaa", seenAt: start))
            try store.recordWatchHead(WatchHead(watch: "main", branch: "main", sha: "bbb", seenAt: slot))
            try store.recordWatchHead(WatchHead(watch: "main", branch: "release", sha: "ccc", seenAt: slot))
            return [
                "\(refused)", "\(takenOver)", "\(holder.map { "\($0)" } ?? "-")", "\(baseline)",
                "\(try store.scheduleStates().map { "\($0.name) \($0.baseline) \($0.lastSlot.map { "\($0)" } ?? "-")" })",
                "\(try store.queueItems(states: nil, limit: 10).map(\.request.pipeline))",
                "\(try store.watchHeads().sorted { $0.branch < $1.branch })",
            ]
        }
        assertSame(answers, "the lock, schedules and watches")
    }

    func testHostSlotsSimulatorsRecoveryAndHealth() throws {
        let runs = (0..<3).map { StoreFixtures.runID(2_000 + $0 * 60) }
        let answers = try onBothBackends { store, backend -> [String] in
            for runID in runs { try store.createRun(StoreFixtures.newRun(runID), owner: StoreFixtures.owner()) }
            let slot = { (runID: String, owner: RunOwner, alive: RunOwner.Liveness) throws -> HostLeaseOutcome in
                try store.leaseHostSlot(
                    host: "mac-1", capacity: 2, runID: runID, owner: owner, at: self.start
                ) { _ in alive }
            }
            let a = try slot(runs[0], controller, .alive)
            let b = try slot(runs[1], controller, .alive)
            let full = try slot(runs[2], otherController, .alive)
            XCTAssertTrue(a.isGranted && b.isGranted, backend.rawValue)
            XCTAssertFalse(full.isGranted, backend.rawValue)
            XCTAssertEqual(try slot(runs[0], controller, .alive).lease?.id, a.lease?.id, "the same lease back")
            let simulator = try store.leaseSimulator(
                host: "mac-1", udid: "SIM-1", runID: runs[0], layer: "unit", owner: controller, at: start
            ) { _ in .alive }
            let taken = try store.leaseSimulator(
                host: "mac-1", udid: "SIM-1", runID: runs[1], layer: "ui", owner: controller, at: start
            ) { _ in .alive }
            XCTAssertTrue(simulator.isGranted, backend.rawValue)
            XCTAssertFalse(taken.isGranted, backend.rawValue)
            let cache = { (runID: String) throws -> HostLeaseOutcome in
                try store.leaseBuildCache(
                    host: "mac-1", caches: ["cache-a", "cache-b"], runID: runID, owner: self.controller, at: self.start
                ) { _ in .alive }
            }
            XCTAssertEqual(try cache(runs[0]).lease?.buildCache, "cache-a", backend.rawValue)
            XCTAssertEqual(try cache(runs[1]).lease?.buildCache, "cache-b", backend.rawValue)
            XCTAssertFalse(try cache(runs[2]).isGranted, "both caches busy on \(backend.rawValue)")
            let afterDeath = try slot(runs[2], otherController, .dead)
            XCTAssertTrue(afterDeath.isGranted, "a dead owner's slots are recovered on \(backend.rawValue)")
            XCTAssertTrue(try store.releaseLease(id: try XCTUnwrap(afterDeath.lease?.id)), backend.rawValue)
            XCTAssertEqual(try store.releaseLeases(runID: runs[2]), [], backend.rawValue)
            XCTAssertEqual(try store.recoverLeases { _ in .alive }, [], backend.rawValue)

            for (index, usable) in [true, false, false].enumerated() {
                try store.recordHealth(
                    HostHealthRecord(
                        host: "mac-1", checkedAt: start.addingTimeInterval(Double(index)), usable: usable,
                        problem: usable ? nil : "unreachable: timed out", latencySeconds: usable ? 0.25 : nil,
                        source: "pipe hosts check"))
            }
            let describe = { (leases: [HostLease]) in
                leases.map { "\($0.kind) \($0.host) \($0.simulatorUDID ?? "-") \($0.layer ?? "-") \($0.owner)" }
            }
            return [
                "\(full.refusal ?? "-")", "\(taken.refusal ?? "-")", "\(describe(afterDeath.recovered))",
                "\(describe(try store.activeLeases(host: "mac-1")))", "\(describe(try store.activeLeases(host: nil)))",
                "\(try store.hostHealth(nil))", "\(try store.hostHealth(["mac-2"]))",
            ]
        }
        assertSame(answers, "leases and health")
    }

    func testForgeDeliveriesOutboxObjectsAndApprovals() throws {
        let answers = try onBothBackends { store, backend -> [String] in
            let delivery = { (digest: String, id: String?, offset: Double) in
                ForgeDelivery(
                    forge: "github", deliveryID: id, bodyDigest: digest, event: "pull_request", rateKey: "k",
                    receivedAt: self.start.addingTimeInterval(offset))
            }
            XCTAssertEqual(try store.recordDelivery(delivery("aa", "d-1", 0)), .new, backend.rawValue)
            let replay = try store.recordDelivery(delivery("aa", "d-2", 5))
            XCTAssertEqual(replay, .seenBefore(firstAt: start, deliveryID: "d-1"), backend.rawValue)
            let update = { (target: String, state: String, offset: Double) in
                ForgeUpdate.Draft(
                    forge: "github", target: target, kind: "status", payload: #"{"state":"\#(state)"}"#, runID: "r1",
                    createdAt: self.start.addingTimeInterval(offset))
            }
            _ = try store.enqueueForgeUpdate(update("status a", "pending", 0))
            let failure = try store.enqueueForgeUpdate(update("status a", "failure", 1))
            _ = try store.enqueueForgeUpdate(update("status b", "pending", 2))
            let now = start.addingTimeInterval(10)
            let first = try XCTUnwrap(try store.claimForgeUpdate(owner: "c1", at: now, leaseSeconds: 60))
            XCTAssertEqual(first.sequence, failure.sequence, backend.rawValue)
            let second = try XCTUnwrap(try store.claimForgeUpdate(owner: "c2", at: now, leaseSeconds: 60))
            XCTAssertNil(try store.claimForgeUpdate(owner: "c3", at: now, leaseSeconds: 60), backend.rawValue)
            XCTAssertFalse(try store.finishForgeUpdate(first.sequence, owner: "c2", .sent, at: now), "not its claim")
            XCTAssertTrue(try store.finishForgeUpdate(first.sequence, owner: "c1", .sent, at: now), backend.rawValue)
            XCTAssertTrue(
                try store.finishForgeUpdate(
                    second.sequence, owner: "c2", .retry(at: now.addingTimeInterval(30), error: "HTTP 502"), at: now))
            try store.recordForgeObjectID(forge: "github", key: "check a", id: "123", at: now)
            try store.recordForgeObjectID(forge: "github", key: "check a", id: "456", at: now)
            let approval = ForgeApproval(
                forge: "github", repository: "acme/app", number: 7, headSHA: "abc", approvedBy: "erin", via: "chat",
                approvedAt: now)
            try store.recordForgeApproval(approval)
            try store.recordForgeApproval(approval)
            let updates = try store.forgeUpdates(states: nil, limit: 10).map { update -> String in
                [update.draft.target, update.state.rawValue, update.draft.payload, "\(update.attempts)"]
                    .joined(separator: " ") + " " + (update.lastError ?? "-")
            }
            let pinned = try store.forgeApproval(forge: "github", repository: "acme/app", number: 7, headSHA: "abc")
            let otherCommit = try store.forgeApproval(
                forge: "github", repository: "acme/app", number: 7, headSHA: "def")
            XCTAssertNil(otherCommit, backend.rawValue)
            return [
                "\(replay)", "\(try store.deliveryCount(rateKey: "k", since: start))", "\(updates)",
                try store.forgeObjectID(forge: "github", key: "check a") ?? "-", "\(pinned.map { "\($0)" } ?? "-")",
            ]
        }
        assertSame(answers, "the forge tables")
    }

    func testForgeRunsAreFoundByPullRequestBranchAndCommit() throws {
        let head = String(repeating: "ab", count: 20)
        let trigger = { (event: ForgeTrigger.Event, number: Int?, sha: String, ref: String, repository: String) in
            ForgeTrigger(
                forge: "github", repository: repository, event: event, number: number, headSHA: sha,
                headBranch: "feature", fetchRef: ref)
        }
        let answers = try onBothBackends { store, backend -> [String] in
            let enqueue = { (trigger: ForgeTrigger) throws -> String in
                let request = QueueRequest(
                    pipeline: "app-intents", ref: trigger.headSHA, source: .forge, requestedBy: "github:octocat",
                    forge: trigger)
                return try XCTUnwrap(try store.enqueue(request, at: self.start).queued?.runID, backend.rawValue)
            }
            let oldest = try enqueue(trigger(.pullRequest, 7, head, "refs/pull/7/head", "o/r"))
            let push = try enqueue(trigger(.push, nil, head, "refs/heads/main", "o/r"))
            let newest = try enqueue(trigger(.pullRequest, 7, "cd" + head.dropFirst(2), "refs/pull/7/head", "o/r"))
            let elsewhere = try enqueue(trigger(.pullRequest, 7, head, "refs/pull/7/head", "o/other"))
            let names = [oldest: "oldest", push: "push", newest: "newest", elsewhere: "elsewhere"]
            let pullRequest = try store.forgeQueueItems(
                forge: "github", repository: "o/r", place: .pullRequest(7), states: nil)
            XCTAssertEqual(pullRequest.map(\.runID), [newest, oldest], backend.rawValue)
            let pushes = try store.forgeQueueItems(
                forge: "github", repository: "o/r", place: .pushes(fetchRef: "refs/heads/main"), states: [.queued])
            let byCommit = try store.forgeQueueItems(forge: "github", headSHA: head.uppercased())
            XCTAssertEqual(Set(byCommit.map(\.runID)), [oldest, push, elsewhere], backend.rawValue)
            return [pullRequest, pushes, byCommit].map { items in
                items.map { names[$0.runID] ?? "?" }.joined(separator: " ")
            }
        }
        assertSame(answers, "forge runs by place and commit")
    }
}

/// The list of controllers, on both backends.
final class ControllerRegistryConformanceTests: ConformanceTestCase {
    func testHeartbeatsListAndLeave() throws {
        let east = RunOwner(hostname: "ci-east", pid: 10, processStart: "boot:1")
        let west = RunOwner(hostname: "ci-west", pid: 20, processStart: nil)
        let answers = try onBothBackends { store, backend -> [String] in
            try store.heartbeat(owner: east, configPath: "controller.yml")
            try store.heartbeat(owner: west, configPath: nil)
            let first = try store.controllers()
            Thread.sleep(forTimeInterval: 0.05)
            try store.heartbeat(owner: east, configPath: "controller.yml")
            let renewed = try store.controllers()
            XCTAssertEqual(renewed.count, 2, backend.rawValue)
            XCTAssertEqual(Set(renewed.map(\.owner.hostname)), ["ci-east", "ci-west"], backend.rawValue)
            let eastNow = try XCTUnwrap(renewed.first { $0.owner == east })
            let eastBefore = try XCTUnwrap(first.first { $0.owner == east })
            XCTAssertGreaterThan(eastNow.heartbeatAt, eastBefore.heartbeatAt, "renewed, by the store's clock")
            XCTAssertEqual(eastNow.startedAt, eastBefore.startedAt, "a renewal keeps the start")
            XCTAssertTrue(renewed.allSatisfy { $0.heartbeatAge >= 0 && $0.heartbeatAge < 5 }, "\(renewed)")
            XCTAssertEqual(renewed.liveness(of: west, heartbeatTimeout: 10), .alive, backend.rawValue)
            XCTAssertEqual(renewed.liveness(of: west, heartbeatTimeout: 0), .dead, "a stale heartbeat")
            XCTAssertEqual(
                renewed.liveness(of: RunOwner(hostname: "ci-north", pid: 1, processStart: nil), heartbeatTimeout: 10),
                .unknown, "not a controller")
            try store.leave(owner: west)
            return try store.controllers().map { "\($0.owner) \($0.configPath ?? "-")" }
        }
        assertSame(answers, "the list of controllers")
    }
}
