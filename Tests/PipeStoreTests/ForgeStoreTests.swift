import Foundation
import PipeCore
import PipeStore
import XCTest

/// The forge loop's part of the store: replays recognised by body and by id, the outbox's order and claims, the ids
/// of what Pipe made, approvals pinned to a commit, and the forge event a queued run keeps.
final class ForgeStoreTests: StoreTestCase {
    private let epoch = StoreFixtures.epoch

    private func delivery(_ digest: String, id: String?, at offset: TimeInterval = 0, rateKey: String? = nil)
        -> ForgeDelivery
    {
        ForgeDelivery(
            forge: "github", deliveryID: id, bodyDigest: digest, event: "pull_request", rateKey: rateKey,
            receivedAt: epoch.addingTimeInterval(offset))
    }

    private func update(_ target: String, _ state: String, at offset: TimeInterval = 0) -> ForgeUpdate.Draft {
        ForgeUpdate.Draft(
            forge: "github", target: target, kind: "status", payload: #"{"state":"\#(state)"}"#, runID: "r1",
            createdAt: epoch.addingTimeInterval(offset))
    }

    func testABodySeenBeforeIsAReplayWhateverIdItCarries() throws {
        let store = try openStore()
        XCTAssertEqual(try store.recordDelivery(delivery("aa", id: "d-1")), .new)
        XCTAssertEqual(
            try store.recordDelivery(delivery("aa", id: "d-2", at: 5)), .seenBefore(firstAt: epoch, deliveryID: "d-1"))
        XCTAssertEqual(
            try store.recordDelivery(delivery("bb", id: "d-1", at: 6)), .seenBefore(firstAt: epoch, deliveryID: "d-1"),
            "an id seen before with another body is not run either")
        XCTAssertEqual(try store.recordDelivery(delivery("cc", id: nil, at: 7)), .new)
        XCTAssertEqual(try store.recordDelivery(delivery("dd", id: nil, at: 8)), .new, "no id: the body decides")
        XCTAssertEqual(try openStore().recordDelivery(delivery("cc", id: nil, at: 9)).isReplay, true, "after reopening")
    }

    func testRerequestsAreCountedByTheirKey() throws {
        let store = try openStore()
        for index in 0..<3 {
            _ = try store.recordDelivery(delivery("r\(index)", id: "d\(index)", at: Double(index) * 60, rateKey: "k"))
        }
        _ = try store.recordDelivery(delivery("other", id: "x", at: 10, rateKey: "other"))
        XCTAssertEqual(try store.deliveryCount(rateKey: "k", since: epoch), 3)
        XCTAssertEqual(try store.deliveryCount(rateKey: "k", since: epoch.addingTimeInterval(61)), 1)
    }

    func testTheNewestStateOfATargetIsSentAndTheOlderOnesAreSuperseded() throws {
        let store = try openStore()
        let pending = try store.enqueueForgeUpdate(update("status a", "pending"))
        let failure = try store.enqueueForgeUpdate(update("status a", "failure", at: 1))
        let other = try store.enqueueForgeUpdate(update("status b", "pending", at: 2))
        let now = epoch.addingTimeInterval(10)

        let first = try XCTUnwrap(try store.claimForgeUpdate(owner: "c1", at: now, leaseSeconds: 60))
        XCTAssertEqual(first.sequence, failure.sequence, "the target written first goes first, with its newest state")
        XCTAssertEqual(first.state, .sending)
        let second = try XCTUnwrap(try store.claimForgeUpdate(owner: "c2", at: now, leaseSeconds: 60))
        XCTAssertEqual(second.sequence, other.sequence, "another sender takes another target")
        XCTAssertNil(try store.claimForgeUpdate(owner: "c3", at: now, leaseSeconds: 60))

        // A newer state written while the older is being sent waits until the sender lets go of the target.
        let success = try store.enqueueForgeUpdate(update("status a", "success", at: 11))
        XCTAssertNil(try store.claimForgeUpdate(owner: "c3", at: now, leaseSeconds: 60))
        XCTAssertTrue(try store.finishForgeUpdate(first.sequence, owner: "c1", .sent, at: now))
        let third = try XCTUnwrap(
            try store.claimForgeUpdate(owner: "c3", at: now.addingTimeInterval(1), leaseSeconds: 60))
        XCTAssertEqual(third.sequence, success.sequence)

        let states = Dictionary(
            uniqueKeysWithValues: try store.forgeUpdates(states: nil, limit: 10).map { ($0.sequence, $0.state) })
        XCTAssertEqual(states[pending.sequence], .superseded)
        XCTAssertEqual(states[failure.sequence], .sent)
        XCTAssertEqual(states[success.sequence], .sending)
        XCTAssertEqual(states[other.sequence], .sending)
    }

    func testARetryWaitsItsTimeAndAnExpiredClaimIsTakenOver() throws {
        let store = try openStore()
        let status = try store.enqueueForgeUpdate(update("status a", "pending"))
        let now = epoch.addingTimeInterval(1)
        _ = try XCTUnwrap(try store.claimForgeUpdate(owner: "c1", at: now, leaseSeconds: 30))
        XCTAssertTrue(
            try store.finishForgeUpdate(
                status.sequence, owner: "c1", .retry(at: now.addingTimeInterval(60), error: "403 secondary limit"),
                at: now))
        XCTAssertNil(try store.claimForgeUpdate(owner: "c2", at: now.addingTimeInterval(59), leaseSeconds: 30))
        let again = try XCTUnwrap(
            try store.claimForgeUpdate(owner: "c2", at: now.addingTimeInterval(60), leaseSeconds: 30))
        XCTAssertEqual(again.attempts, 1)
        XCTAssertEqual(again.lastError, "403 secondary limit")

        // c2 dies mid-send: once its claim runs out, c3 sends it, and c2's late answer changes nothing.
        let later = now.addingTimeInterval(60 + 31)
        let takenOver = try XCTUnwrap(try store.claimForgeUpdate(owner: "c3", at: later, leaseSeconds: 30))
        XCTAssertEqual(takenOver.sequence, status.sequence)
        XCTAssertFalse(try store.finishForgeUpdate(status.sequence, owner: "c2", .sent, at: later))
        XCTAssertTrue(
            try store.finishForgeUpdate(status.sequence, owner: "c3", .failed("422 Validation Failed"), at: later))
        let ended = try XCTUnwrap(try store.forgeUpdates(states: [.failed], limit: 1).first)
        XCTAssertEqual(ended.lastError, "422 Validation Failed")
        XCTAssertEqual(ended.attempts, 2)
    }

    func testAPayloadThatIsNotJSONIsRefused() throws {
        var draft = update("status a", "pending")
        draft.payload = "state=pending"
        XCTAssertThrowsError(try openStore().enqueueForgeUpdate(draft)) { error in
            XCTAssertTrue("\(error)".contains("not JSON"), "\(error)")
        }
    }

    func testObjectIdsAndApprovalsPinnedToTheirCommit() throws {
        let store = try openStore()
        XCTAssertNil(try store.forgeObjectID(forge: "github", key: "comment o/r#7 app-intents"))
        try store.recordForgeObjectID(forge: "github", key: "comment o/r#7 app-intents", id: "101", at: epoch)
        try store.recordForgeObjectID(forge: "github", key: "comment o/r#7 app-intents", id: "102", at: epoch)
        XCTAssertEqual(try store.forgeObjectID(forge: "github", key: "comment o/r#7 app-intents"), "102")
        XCTAssertNil(try store.forgeObjectID(forge: "gitlab", key: "comment o/r#7 app-intents"))

        let head = String(repeating: "a", count: 40)
        try store.recordForgeApproval(
            ForgeApproval(
                forge: "github", repository: "o/r", number: 7, headSHA: head, approvedBy: "github:maintainer",
                via: "label ok-to-test", approvedAt: epoch))
        XCTAssertEqual(
            try store.forgeApproval(forge: "github", repository: "o/r", number: 7, headSHA: head)?.approvedBy,
            "github:maintainer")
        XCTAssertNil(
            try store.forgeApproval(
                forge: "github", repository: "o/r", number: 7, headSHA: String(repeating: "b", count: 40)),
            "a later push needs a new approval")
    }

    func testAQueuedRunKeepsItsForgeEventAcrossARequeue() throws {
        let store = try openStore()
        let trigger = ForgeTrigger(
            forge: "github", repository: "o/r", event: .pullRequest, number: 7,
            headSHA: String(repeating: "c", count: 40), headBranch: "feature/`x`", fetchRef: "refs/pull/7/head",
            baseBranch: "main", fork: "someone/r", secretsWithheld: true, deliveryID: "d-1")
        let request = QueueRequest(
            pipeline: "app-intents", ref: trigger.headSHA, source: .forge, requestedBy: "github:octocat",
            triggerKey: "forge:github:app-intents:\(trigger.headSHA)", forge: trigger, rerunOf: "20261118-100000-1a2b")
        guard case .queued(let queued) = try store.enqueue(request, at: epoch) else {
            return XCTFail("not queued")
        }
        XCTAssertEqual(queued.request, request)
        XCTAssertEqual(queued.priority, QueueSource.watch.priority, "a forge's event waits behind people")
        XCTAssertTrue(try store.claim(runID: queued.runID, owner: StoreFixtures.owner(), at: epoch))
        let copy = try XCTUnwrap(try store.requeueInterrupted(runID: queued.runID, problem: "killed", at: epoch))
        XCTAssertEqual(copy.request.forge, trigger)
        XCTAssertEqual(copy.request.rerunOf, request.rerunOf)
    }
}

extension ForgeDeliveryRecording {
    fileprivate var isReplay: Bool {
        if case .seenBefore = self { return true }
        return false
    }
}
