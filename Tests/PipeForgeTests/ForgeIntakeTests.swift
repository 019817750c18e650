import Foundation
import PipeCore
import PipeForge
import PipeStore
import PipeTestSupport
import XCTest

/// Real payloads, verified and read as the controller reads them, through the intake into a real SQLite store.
final class ForgeIntakeTests: XCTestCase {
    private var folder: TemporaryDirectory!
    private var store: SQLiteRunStore!
    private var heads: [Int: String] = [:]
    private let repository = "Codertocat/Hello-World"
    private let opened = "ec26c3e57ca3a959ca5aad62de7213c562f8c821"
    private let newer = "1111111111111111111111111111111111111111"

    override func setUpWithError() throws {
        folder = try TemporaryDirectory(prefix: "pipe-intake")
        store = try SQLiteRunStore(location: folder.appending("pipe.db"))
    }

    override func tearDown() {
        store = nil
        folder?.remove()
    }

    private func config(forks: ForkPolicy = .never, supersede: Bool = true) -> ForgeConfig {
        ForgeConfig(
            name: "github", kind: .github, apiURL: URL(string: "https://api.github.com")!, repository: repository,
            token: .environment("GITHUB_TOKEN"),
            webhook: WebhookEndpointConfig(path: "/hooks/github", secret: .environment("HOOK_SECRET")),
            push: [PushRule(pipelines: ["app-intents"], refs: [TrustedRefPattern("main")])],
            pullRequests: [PullRequestRule(pipelines: ["app-intents"])],
            app: GitHubAppConfig(appID: 2, privateKey: .file("app.pem"), installationID: 1), supersede: supersede,
            forks: forks)
    }

    private func intake(_ config: ForgeConfig? = nil) -> ForgeIntake {
        ForgeIntake(config: config ?? self.config(), store: store) { [unowned self] trigger in
            trigger.number.flatMap { heads[$0] }
        }
    }

    /// A real payload; `replacing` edits its text first (another head, another repository), as a new event.
    private func delivery(
        _ file: String, event: String, replacing: [String: String] = [:], replacingFirst: [String: String] = [:],
        deliveryID: String = UUID().uuidString
    ) throws -> WebhookDelivery {
        var text = String(decoding: try ForgeContractFiles.bytes("github/webhooks/\(file)"), as: UTF8.self)
        for (old, new) in replacing { text = text.replacingOccurrences(of: old, with: new) }
        for (old, new) in replacingFirst {
            let range = try XCTUnwrap(text.range(of: old), "\(file) has no \(old) to replace")
            text.replaceSubrange(range, with: new)
        }
        var read = try WebhookDeliveries.read(.github, event: event, body: Array(text.utf8))
        read.deliveryID = deliveryID
        return read
    }

    private func queued(_ result: ForgeIntakeResult) -> [String] {
        result.actions.compactMap {
            if case .queued(_, let runID) = $0 { return runID }
            return nil
        }
    }

    func testAnOpenedPullRequestQueuesItsExactHeadAndAReplayRunsNothing() throws {
        let opening = try delivery("pull_request.opened.octokit.json", event: "pull_request")
        let result = try intake().accept(opening)
        let runID = try XCTUnwrap(queued(result).first, result.summary)
        let item = try XCTUnwrap(try store.queuedRun(runID))
        XCTAssertEqual(item.request.ref, opened)
        XCTAssertEqual(item.request.source, .forge)
        XCTAssertEqual(item.request.forge?.fetchRef, "refs/pull/2/head")
        XCTAssertEqual(item.request.forge?.number, 2)
        XCTAssertNil(item.request.forge?.fork)
        XCTAssertEqual(item.request.requestedBy, "github:Codertocat")

        var replay = opening
        replay.deliveryID = "another-id"
        let again = try intake().accept(replay)
        XCTAssertTrue(again.summary.hasPrefix("replay:"), again.summary)
        XCTAssertEqual(again.actions, [])
        XCTAssertEqual(try store.queueItems(states: nil, limit: 10).count, 1)
    }

    func testANewerHeadSupersedesTheWaitingRunAndAStaleOneRunsNothing() throws {
        let first = try XCTUnwrap(
            queued(try intake().accept(try delivery("pull_request.opened.octokit.json", event: "pull_request"))).first)
        heads[2] = newer
        let push = try intake().accept(
            try delivery("pull_request.synchronize.octokit.json", event: "pull_request", replacing: [opened: newer]))
        XCTAssertTrue(push.actions.contains(.superseded(runID: first, bySHA: newer)), push.summary)
        let second = try XCTUnwrap(queued(push).first)
        XCTAssertEqual(try store.queuedRun(first)?.state, .cancelled)
        XCTAssertEqual(try store.queuedRun(first)?.problem, "superseded by 111111111111")

        // A late delivery of the older head (a new body, so not a replay) supersedes nothing.
        let late = try intake().accept(
            try delivery(
                "pull_request.synchronize.octokit.json", event: "pull_request",
                replacing: ["\"synchronize\"": "\"synchronize\" "]))
        XCTAssertTrue(late.summary.hasPrefix("stale:"), late.summary)
        XCTAssertEqual(try store.queuedRun(second)?.state, .queued)
    }

    func testANewerHeadSupersedesItsRunBehindTwelveThousandWaitingOthers() throws {
        let first = try XCTUnwrap(
            queued(try intake().accept(try delivery("pull_request.opened.octokit.json", event: "pull_request"))).first)
        let raw = try SQLiteDatabase(path: folder.appending("pipe.db").path)
        try raw.execute(ForgeQueueFiller.sql(count: 12_000, forge: "github", repository: repository, waiting: true))
        raw.close()
        heads[2] = newer
        let push = try intake().accept(
            try delivery("pull_request.synchronize.octokit.json", event: "pull_request", replacing: [opened: newer]))
        XCTAssertTrue(push.actions.contains(.superseded(runID: first, bySHA: newer)), push.summary)
        XCTAssertEqual(try store.queuedRun(first)?.state, .cancelled)
        XCTAssertEqual(push.actions.count, 2, "the waiting runs of other pull requests are left alone")
    }

    func testAReopenedPullRequestAtAVerifiedCommitReusesItsRun() throws {
        let first = try XCTUnwrap(
            queued(try intake().accept(try delivery("pull_request.opened.octokit.json", event: "pull_request"))).first)
        let reopened = try intake().accept(try delivery("pull_request.reopened.octokit.json", event: "pull_request"))
        XCTAssertEqual(reopened.actions, [.reused(pipeline: "app-intents", runID: first)], reopened.summary)
        XCTAssertEqual(reopened.reportedRuns, [first], "its result is posted again")

        // Once that run was stopped, the same commit runs again, linked to it.
        XCTAssertTrue(try store.cancelQueued(runID: first, reason: "cancelled by a person", at: Date()))
        let again = try intake().accept(
            try delivery(
                "pull_request.reopened.octokit.json", event: "pull_request",
                replacing: ["\"reopened\"": "\"reopened\" "]))
        let rerun = try XCTUnwrap(queued(again).first, again.summary)
        XCTAssertEqual(try store.queuedRun(rerun)?.request.rerunOf, first)
    }

    func testAClosedPullRequestDropsItsWaitingRuns() throws {
        let first = try XCTUnwrap(
            queued(try intake().accept(try delivery("pull_request.opened.octokit.json", event: "pull_request"))).first)
        let closed = try intake().accept(try delivery("pull_request.closed.octokit.json", event: "pull_request"))
        XCTAssertEqual(closed.actions, [.stopped(runID: first, reason: "pull request #2 was closed")], closed.summary)
        XCTAssertEqual(try store.queuedRun(first)?.state, .cancelled)
    }

    func testPullRequestsFromForksFollowThePolicy() throws {
        // The first `full_name` is the head repository's.
        let forkPR = try delivery(
            "pull_request.opened.octokit.json", event: "pull_request",
            replacingFirst: ["\"Codertocat/Hello-World\"": "\"forker/Hello-World\""])
        guard case .pullRequest(let event) = forkPR.event, event.isFromFork else {
            return XCTFail("the edited payload must come from a fork: \(forkPR.event)")
        }
        let never = try intake().accept(forkPR)
        XCTAssertEqual(queued(never), [], never.summary)
        XCTAssertTrue(never.summary.contains("forks.policy is never"), never.summary)

        var withoutSecrets = forkPR
        withoutSecrets.bodyDigest = String(repeating: "1", count: 64)
        withoutSecrets.deliveryID = "w"
        let run = try XCTUnwrap(queued(try intake(config(forks: .withoutSecrets)).accept(withoutSecrets)).first)
        let item = try XCTUnwrap(try store.queuedRun(run))
        XCTAssertEqual(item.request.forge?.fork, "forker/Hello-World")
        XCTAssertEqual(item.request.forge?.secretsWithheld, true)
        XCTAssertTrue(item.request.triggerKey?.hasSuffix(":untrusted") == true, "no trusted run reuses it")
    }

    func testAnApprovalByLabelRunsOnlyTheApprovedHead() throws {
        let policy = ForkPolicy.approved(ForkApproval(label: "ok-to-test", forgeUsers: ["maintainer"]))
        let intake = intake(config(forks: policy))
        func forkEvent(_ action: PullRequestAction, head: String, sender: String, added: [String] = [], id: String)
            -> WebhookDelivery
        {
            WebhookDelivery(
                forge: .github, eventName: "pull_request", deliveryID: id,
                bodyDigest: String(repeating: id.first.map(String.init) ?? "0", count: 64),
                event: .pullRequest(
                    PullRequestEvent(
                        action: action, number: 9, headSHA: head, headRef: "patch-1",
                        headRepository: "forker/Hello-World", baseRef: "master", baseRepository: repository,
                        isFromFork: true, title: "Fix `typo` <!-- -->", author: "forker", sender: sender,
                        addedLabels: added)))
        }
        let waiting = try intake.accept(forkEvent(.opened, head: opened, sender: "forker", id: "a"))
        XCTAssertEqual(queued(waiting), [])
        XCTAssertTrue(waiting.summary.contains("waiting for a maintainer to approve"), waiting.summary)
        let byTheAuthor = try intake.accept(
            forkEvent(.labeled, head: opened, sender: "forker", added: ["ok-to-test"], id: "b"))
        XCTAssertEqual(queued(byTheAuthor), [], "the author cannot approve their own code")
        let approved = try intake.accept(
            forkEvent(.labeled, head: opened, sender: "maintainer", added: ["ok-to-test"], id: "c"))
        let run = try XCTUnwrap(queued(approved).first, approved.summary)
        XCTAssertEqual(try store.queuedRun(run)?.request.forge?.event, .approval)
        XCTAssertEqual(try store.queuedRun(run)?.request.requestedBy, "github:maintainer")

        let pushed = try intake.accept(forkEvent(.synchronized, head: newer, sender: "forker", id: "d"))
        XCTAssertEqual(queued(pushed), [], "a later push needs a new approval: \(pushed.summary)")
    }

    func testAPushQueuesTheBranchesForgesYmlNamesAndANewerPushSupersedes() throws {
        var config = config()
        config.repository = "bkeepers-inc/test"
        let ignored = try intake(config).accept(try delivery("push.normal.probot.json", event: "push"))
        XCTAssertEqual(
            ignored.summary, "ignored: forges.yml runs nothing for pushes to refs/heads/bkeepers-patch-3")

        config.push = [PushRule(pipelines: ["app-intents"], refs: [TrustedRefPattern("bkeepers-*")])]
        let first = try intake(config).accept(
            try delivery("push.normal.probot.json", event: "push", replacing: ["\"ref\"": "\"ref\" "]))
        let runID = try XCTUnwrap(queued(first).first, first.summary)
        let trigger = try XCTUnwrap(try store.queuedRun(runID)?.request.forge)
        XCTAssertEqual(trigger.event, .push)
        XCTAssertEqual(trigger.headSHA, "738a951dba49dfec487000ef85ae80291d7ab32a")
        XCTAssertEqual(trigger.fetchRef, "refs/heads/bkeepers-patch-3")
        XCTAssertNil(trigger.number)

        let next = try intake(config).accept(
            try delivery(
                "push.normal.probot.json", event: "push",
                replacing: ["738a951dba49dfec487000ef85ae80291d7ab32a": newer]))
        XCTAssertTrue(next.actions.contains(.superseded(runID: runID, bySHA: newer)), next.summary)
    }

    func testALatePushOfAnOlderCommitSupersedesNothingButAForcePushBackDoes() throws {
        var config = config()
        config.repository = "bkeepers-inc/test"
        config.push = [PushRule(pipelines: ["app-intents"], refs: [TrustedRefPattern("bkeepers-*")])]
        let older = "738a951dba49dfec487000ef85ae80291d7ab32a"
        let before = "f5cd85485562ec4b0855c77cf44ecbed40c8e689"
        // The newer push (before: older → after: newer) arrives first; then the older push, delivered late.
        let first = try intake(config).accept(
            try delivery(
                "push.normal.probot.json", event: "push", replacing: [older: newer],
                replacingFirst: ["\"before\": \"\(before)\"": "\"before\": \"\(older)\""]))
        let newerRun = try XCTUnwrap(queued(first).first, first.summary)
        let late = try intake(config).accept(try delivery("push.normal.probot.json", event: "push"))
        XCTAssertTrue(late.summary.hasPrefix("stale:"), late.summary)
        XCTAssertTrue(late.summary.contains("replaced it with \(newer.prefix(12))"), late.summary)
        XCTAssertEqual(queued(late), [])
        XCTAssertEqual(try store.queuedRun(newerRun)?.state, .queued, "the newer run goes on")

        // A force-push back to the older commit (before: newer → after: older) is the newest push.
        let back = try intake(config).accept(
            try delivery("push.normal.probot.json", event: "push", replacing: [before: newer]))
        XCTAssertEqual(queued(back).count, 1, back.summary)
        XCTAssertTrue(back.actions.contains(.superseded(runID: newerRun, bySHA: older)), back.summary)
    }

    func testADeletedBranchRunsNothing() throws {
        var config = config()
        config.repository = "bradrydzewski/drone-test-go"
        config.push = [PushRule(pipelines: ["app-intents"], refs: [TrustedRefPattern("*")])]
        let deleted = try intake(config).accept(try delivery("push.branch-deleted.go-scm.json", event: "push"))
        XCTAssertTrue(deleted.summary.hasSuffix("was deleted"), deleted.summary)
        XCTAssertEqual(try store.queueItems(states: nil, limit: 10).count, 0)
    }

    func testAReRunOfPipesCheckRunQueuesItAgainLinkedAndIsRateLimited() throws {
        let sha = "d6fde92930d4715a2b49857d24b940956b26d2d3"
        let trigger = ForgeTrigger(
            forge: "github", repository: "github/hello-world", event: .pullRequest, number: 4, headSHA: sha,
            headBranch: "master", fetchRef: "refs/pull/4/head")
        guard
            case .queued(let earlier) = try store.enqueue(
                QueueRequest(
                    pipeline: "app-intents", ref: sha, source: .forge, requestedBy: "github:x", forge: trigger),
                at: Date())
        else { return XCTFail("not queued") }
        var config = config()
        config.repository = "github/hello-world"
        let intake = ForgeIntake(config: config, store: store, rerequestLimit: (2, 600)) { _ in nil }
        let externalID = "pipe:app-intents:merge:\(earlier.runID)"
        for attempt in 0..<4 {
            let result = try intake.accept(
                try delivery(
                    "check_run.rerequested.octokit.json", event: "check_run",
                    replacing: [
                        "\"external_id\": \"\"": "\"external_id\": \"\(externalID)\"",
                        "\"id\": 4,": "\"id\": 4, \"n\": \(attempt),",
                    ]))
            if attempt < 2 {
                let rerun = try XCTUnwrap(queued(result).first, result.summary)
                XCTAssertEqual(try store.queuedRun(rerun)?.request.rerunOf, earlier.runID)
                XCTAssertEqual(try store.queuedRun(rerun)?.request.forge?.event, .rerequest)
            } else {
                XCTAssertTrue(result.summary.hasPrefix("refused:"), result.summary)
            }
        }
    }
}
