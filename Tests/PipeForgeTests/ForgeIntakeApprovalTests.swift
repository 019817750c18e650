import Foundation
import PipeCore
import PipeForge
import PipeStore
import PipeTestSupport
import XCTest

/// `ForgeIntake.approve`: a maintainer's approval given on the coordinator (`pipe forge approve`) or in the chat,
/// into a real SQLite store.
final class ForgeIntakeApprovalTests: XCTestCase {
    private var folder: TemporaryDirectory!
    private var store: SQLiteRunStore!
    private var currentHead: String?
    private let repository = "acme/reader"
    private let fork = "forker/reader"
    private let head = "ec26c3e57ca3a959ca5aad62de7213c562f8c821"
    private let newer = "1111111111111111111111111111111111111111"

    override func setUpWithError() throws {
        folder = try TemporaryDirectory(prefix: "pipe-intake-approval")
        store = try SQLiteRunStore(location: folder.appending("pipe.db"))
    }

    override func tearDown() {
        store = nil
        folder?.remove()
    }

    private func intake(_ forks: ForkPolicy) -> ForgeIntake {
        let config = ForgeConfig(
            name: "github", kind: .github, apiURL: URL(string: "https://api.github.com")!, repository: repository,
            token: .environment("GITHUB_TOKEN"),
            webhook: WebhookEndpointConfig(path: "/hooks/github", secret: .environment("HOOK_SECRET")),
            push: [],
            pullRequests: [PullRequestRule(pipelines: ["app-intents"], baseBranches: [BranchPattern("main")])],
            forks: forks)
        return ForgeIntake(config: config, store: store) { [unowned self] _ in currentHead }
    }

    private func approve(
        _ intake: ForgeIntake, head: String? = nil, base: String = "main", from source: ForkApprovalSource = .command
    ) throws -> ForgeIntakeResult {
        try intake.approve(
            number: 9, headSHA: head ?? self.head, headRef: "patch-1", baseBranch: base, headRepository: fork,
            from: source, by: "cli:alice@coordinator", via: "pipe forge approve")
    }

    private func queued(_ result: ForgeIntakeResult) -> [String] {
        result.actions.compactMap {
            if case .queued(_, let runID) = $0 { return runID }
            return nil
        }
    }

    func testTheCommandRecordsTheApprovalAndQueuesTheForksHeadAsUntrusted() throws {
        let intake = intake(.approved(ForkApproval(command: true)))
        let result = try approve(intake)
        let runID = try XCTUnwrap(queued(result).first, result.summary)
        let item = try XCTUnwrap(try store.queuedRun(runID))
        XCTAssertEqual(item.request.ref, head)
        XCTAssertEqual(item.request.requestedBy, "cli:alice@coordinator")
        XCTAssertEqual(item.request.forge?.event, .approval)
        XCTAssertEqual(item.request.forge?.fork, fork)
        XCTAssertEqual(item.request.forge?.fetchRef, "refs/pull/9/head")
        XCTAssertTrue(item.request.triggerKey?.hasSuffix(":untrusted") == true, "no trusted run reuses it")
        let approval = try XCTUnwrap(
            try store.forgeApproval(forge: "github", repository: repository, number: 9, headSHA: head))
        XCTAssertEqual(approval.approvedBy, "cli:alice@coordinator")
        XCTAssertEqual(approval.via, "pipe forge approve")
        XCTAssertNil(
            try store.forgeApproval(forge: "github", repository: repository, number: 9, headSHA: newer),
            "the approval is pinned to the head it was given at")

        let again = try approve(intake)
        XCTAssertEqual(queued(again), [], "the same head is not queued twice: \(again.summary)")
        XCTAssertTrue(again.summary.contains("already verifies this commit"), again.summary)
    }

    func testAnApprovalOfAHeadTheForgeNoLongerReportsRunsNothing() throws {
        currentHead = newer
        let result = try approve(intake(.approved(ForkApproval(command: true))))
        XCTAssertEqual(queued(result), [])
        XCTAssertTrue(result.summary.hasPrefix("stale:"), result.summary)
    }

    func testTheCommandIsRefusedUnlessThePolicyIsApprovedWithCommand() throws {
        for policy in [
            ForkPolicy.never, .withoutSecrets, .approved(ForkApproval(label: "ok-to-test", forgeUsers: ["bob"])),
        ] {
            XCTAssertThrowsError(try approve(intake(policy)), policy.name) { error in
                let message = "\(error)"
                XCTAssertTrue(message.contains("forks.policy is \(policy.name)"), message)
                XCTAssertTrue(message.contains("command: true"), message)
            }
        }
        XCTAssertEqual(try store.queueItems(states: nil, limit: 10).count, 0, "nothing was queued")
        XCTAssertNil(try store.forgeApproval(forge: "github", repository: repository, number: 9, headSHA: head))
    }

    func testTheChatApprovesOnlyForTheChatApproversForgesYmlNames() throws {
        let policy = ForkPolicy.approved(ForkApproval(chatUsers: ["U1ALICE"]))
        XCTAssertThrowsError(try approve(intake(policy), from: .command), "the chat list does not allow the CLI")
        XCTAssertThrowsError(try approve(intake(policy), from: .chat(userID: "U2BOB"))) { error in
            XCTAssertEqual(
                "\(error)", "chat user U2BOB is not among the chat-approvers of forge github's forks: in forges.yml")
        }
        XCTAssertThrowsError(try approve(intake(.withoutSecrets), from: .chat(userID: "U1ALICE"))) { error in
            XCTAssertTrue("\(error)".contains("chat-approvers: [U1ALICE]"), "\(error)")
        }
        XCTAssertEqual(try store.queueItems(states: nil, limit: 10).count, 0, "no refusal queued anything")
        let result = try approve(intake(policy), from: .chat(userID: "U1ALICE"))
        XCTAssertEqual(queued(result).count, 1, result.summary)
    }

    func testAPullRequestIntoABranchForgesYmlDoesNotRunForQueuesNothing() throws {
        let result = try approve(intake(.approved(ForkApproval(command: true))), base: "experiments")
        XCTAssertEqual(queued(result), [], result.summary)
    }
}
