import Foundation
import PipeCore
import PipeForge
import PipeStore
import PipeTestSupport
import XCTest

/// The outbox sender over a real SQLite store, with a clock the test moves: order per target, the newest state,
/// retries at the time the forge named, a rate-limited forge held while others go on, giving up, and a sender that
/// died mid-send whose update another one sends.
final class ForgeOutboxSenderTests: XCTestCase {
    private var folder: TemporaryDirectory!
    private var now = Date(timeIntervalSince1970: 1_795_000_000)
    private var sent: [String] = []

    override func setUpWithError() throws {
        folder = try TemporaryDirectory(prefix: "pipe-outbox")
    }

    override func tearDown() {
        folder?.remove()
    }

    private func store() throws -> SQLiteRunStore {
        try SQLiteRunStore(location: folder.appending("pipe.db"))
    }

    @discardableResult
    private func write(_ store: ForgeStore, forge: String = "github", _ target: String, _ state: String) throws
        -> ForgeUpdate
    {
        now = now.addingTimeInterval(1)
        return try store.enqueueForgeUpdate(
            ForgeUpdate.Draft(
                forge: forge, target: target, kind: "status", payload: #"{"state":"\#(state)"}"#, runID: nil,
                createdAt: now))
    }

    private func sender(
        _ store: ForgeStore, owner: String = "c1", maximumAttempts: Int = 12,
        outcome: @escaping (ForgeUpdate) -> ForgeOutboxSender.Outcome = { _ in .sent }
    ) -> ForgeOutboxSender {
        let clock = { [unowned self] in now }
        return ForgeOutboxSender(store: store, owner: owner, clock: clock, maximumAttempts: maximumAttempts) {
            [unowned self] update in
            let result = outcome(update)
            if result == .sent { sent.append("\(update.draft.target)=\(update.draft.payload)") }
            return result
        }
    }

    func testEachTargetSendsItsNewestStateOnceInTheOrderTargetsWereWritten() throws {
        let store = try store()
        try write(store, "status a", "pending")
        try write(store, "status b", "pending")
        try write(store, "status a", "success")
        let report = try sender(store).sendDue()
        XCTAssertEqual(report, ForgeOutboxSender.Report(sent: 2))
        XCTAssertEqual(sent, [#"status a={"state":"success"}"#, #"status b={"state":"pending"}"#])
        XCTAssertEqual(try sender(store).sendDue(), ForgeOutboxSender.Report(), "nothing is sent twice")
        XCTAssertEqual(try store.forgeUpdates(states: [.superseded], limit: 10).count, 1)
    }

    func testARateLimitedForgeWaitsWhileTheOthersGoOn() throws {
        let store = try store()
        try write(store, forge: "github", "status a", "pending")
        try write(store, forge: "github", "status b", "pending")
        try write(store, forge: "gitlab", "status c", "pending")
        var limited = true
        let sender = sender(store) { update in
            if update.draft.forge == "github" && limited {
                return .retry(seconds: 60, error: "403 secondary rate limit, Retry-After: 60", forgeWaits: true)
            }
            return .sent
        }
        XCTAssertEqual(try sender.sendDue(), ForgeOutboxSender.Report(sent: 1, retrying: 1))
        XCTAssertEqual(sent, [#"status c={"state":"pending"}"#], "status b was not tried while GitHub asked to wait")

        limited = false
        now = now.addingTimeInterval(59)
        XCTAssertEqual(try sender.sendDue(), ForgeOutboxSender.Report())
        now = now.addingTimeInterval(1)
        XCTAssertEqual(try sender.sendDue(), ForgeOutboxSender.Report(sent: 2))
        let retried = try XCTUnwrap(
            try store.forgeUpdates(states: [.sent], limit: 10).first { $0.draft.target == "status a" })
        XCTAssertEqual(retried.attempts, 2)
    }

    func testAnUpdateIsGivenUpAfterItsAttemptsAndARefusalAtOnce() throws {
        let store = try store()
        try write(store, "status a", "pending")
        try write(store, "comment #7", "body")
        let sender = sender(store, maximumAttempts: 3) { update in
            update.draft.target == "comment #7"
                ? .failed("422 body is too long") : .retry(seconds: 5, error: "502 Bad Gateway", forgeWaits: false)
        }
        for _ in 0..<3 {
            _ = try sender.sendDue()
            now = now.addingTimeInterval(5)
        }
        let failed = try store.forgeUpdates(states: [.failed], limit: 10)
        XCTAssertEqual(failed.map(\.draft.target), ["status a", "comment #7"])
        XCTAssertEqual(failed.first?.lastError, "gave up after 3 attempts: 502 Bad Gateway")
        XCTAssertEqual(failed.last?.lastError, "422 body is too long")
    }

    func testWhatADeadSenderClaimedIsSentByTheNextOneOnce() throws {
        let first = try store()
        try write(first, "status a", "success")
        // The first controller claims and dies before it records anything (kill -9 between sending and recording).
        _ = try XCTUnwrap(try first.claimForgeUpdate(owner: "dead", at: now, leaseSeconds: 120))
        let restarted = try store()
        XCTAssertEqual(try sender(restarted, owner: "c2").sendDue(), ForgeOutboxSender.Report(), "its claim holds")
        now = now.addingTimeInterval(121)
        XCTAssertEqual(try sender(restarted, owner: "c2").sendDue(), ForgeOutboxSender.Report(sent: 1))
        XCTAssertEqual(sent, [#"status a={"state":"success"}"#])
        XCTAssertEqual(try sender(restarted, owner: "c3").sendDue(), ForgeOutboxSender.Report())
    }
}
