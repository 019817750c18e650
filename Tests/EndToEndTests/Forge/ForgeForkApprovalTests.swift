import Foundation
import PipeTestSupport
import XCTest

/// A fork's pull request under `forks: {policy: approved}`, approved as a maintainer would: from the chat, through
/// the controller's chat-ops endpoint, and with a label on the forge, through its webhook. The fork's head runs on
/// the untrusted host once, and only the people forges.yml names can approve.
final class ForgeForkApprovalTests: ForgeLoopTestCase {
    private let chatSecret = "fork-approval-chat-secret"
    private var receiver: ResponseReceiver!

    override func setUpWithError() throws {
        try super.setUpWithError()
        receiver = try ResponseReceiver()
    }

    override func tearDown() {
        receiver?.stop()
        super.tearDown()
    }

    /// The forge project with an untrusted host, fork approvals as `forks` says, and the controller's chat-ops
    /// endpoint on its listener.
    private func forkProject(forks: String) throws -> PipeProject {
        let project = try forgeProject()
        try project.writeHostsFile(
            host.hostsFileEntry().replacingOccurrences(
                of: "    capacity: 1\n", with: "    capacity: 1\n    trust: untrusted\n"))
        let forges = project.url.appendingPathComponent("forges.yml")
        try String(contentsOf: forges, encoding: .utf8).appending("\n    forks: \(forks)\n")
            .write(to: forges, atomically: true, encoding: .utf8)
        try chatSecret.write(
            to: project.url.appendingPathComponent("chatops-secret"), atomically: true, encoding: .utf8)
        try writeConfig(
            """
            http:
              address: 127.0.0.1
              port: 0
            chatops:
              path: /chatops/slash
              secret: {file: chatops-secret}
              response-urls: ["http://127.0.0.1:"]
              authorization:
                users:
                  U1ALICE: {run: []}
                  U2BOB: {run: ["*"]}

            """, in: project)
        return project
    }

    /// GitHub's real `opened` payload for pull request `number` at `head`, from the fork `forker/reader`.
    private func forkPayload(number: Int, head: String) throws -> String {
        var payload = try openedPayload(number: number, head: head)
        // The first full_name of the payload is the head repository's: the fork.
        let first = try XCTUnwrap(payload.range(of: "\"\(repository)\""))
        payload.replaceSubrange(first, with: "\"forker/reader\"")
        return payload
    }

    private func deliver(_ payload: String, to controller: BackgroundPipe) throws -> ForgeStandInDeliveryResult {
        try standIn.deliver(
            ForgeStandInDelivery(
                forge: "github", body: payload, url: try hookURL(of: controller), secret: secret,
                event: "pull_request"))
    }

    private func finishedRun(of project: PipeProject, controller: BackgroundPipe) throws -> [String: Any] {
        try waitUntil("the fork's run ends", timeout: 120) {
            try runs(project).first.map(isEnded) ?? false || !controller.process.isRunning
        }
        return try project.lastRecord()
    }

    func testAChatApproverLetsTheForksHeadRunAndNoOneElseCan() throws {
        let project = try forkProject(forks: "{policy: approved, chat-approvers: [U1ALICE]}")
        let head = try pullRequestHead(14, in: project)
        try standIn.setPullRequest(.github, repo: repository, number: 14, headSHA: head, headRepo: "forker/reader")
        let controller = try startController(in: project)
        defer { stop(controller) }
        let waiting = try deliver(try forkPayload(number: 14, head: head), to: controller)
        XCTAssertEqual(waiting.status, 202, waiting.answer)
        XCTAssertTrue(waiting.answer.contains("waiting for a maintainer to approve"), waiting.answer)

        let hook = try hookURL(of: controller)
        let endpoint = "http://127.0.0.1:\(hook.port ?? 0)/chatops/slash"
        let slack = SlackSlashCommand(secret: chatSecret, responseURL: receiver.url)
        let refused = try slack.post(slack.form("approve github 14", user: "U2BOB", name: "bob"), to: endpoint)
        XCTAssertEqual(refused.status, 403, refused.body)
        XCTAssertTrue(refused.text.contains("U2BOB is not among the chat-approvers"), refused.text)
        let moved = try slack.post(
            slack.form("approve github 14 \(String(repeating: "0", count: 40))"), to: endpoint)
        XCTAssertEqual(moved.status, 200, moved.body)
        waitUntil("the chat hears the head moved", timeout: 20) {
            receiver.texts.contains { $0.contains("not approved") && $0.contains("someone pushed since") }
        }
        XCTAssertEqual(try runs(project).count, 0, "neither the refusal nor the stale pin ran anything")

        let approved = try slack.post(slack.form("approve github #14 \(head)"), to: endpoint)
        XCTAssertEqual(approved.status, 200, approved.body)
        XCTAssertLessThan(approved.seconds, 3)
        XCTAssertTrue(approved.text.contains("approving pull request #14 of \(repository)"), approved.text)
        waitUntil("the chat hears the approval", timeout: 20) {
            receiver.texts.contains { $0.contains("approved pull request #14 of \(repository) at \(head)") }
        }
        let record = try finishedRun(of: project, controller: controller)
        XCTAssertEqual(layer("logic", in: record)?["outcome"] as? String, "passed", output(of: controller))
        XCTAssertEqual((record["code"] as? [String: Any])?["level"] as? String, "untrusted")
        XCTAssertEqual((record["request"] as? [String: Any])?["requestedBy"] as? String, "chat:alice (U1ALICE)")
        try waitUntil("the merge status goes out", timeout: 30) {
            try statuses(for: head).contains { $0["state"] as? String == "success" }
        }
    }

    func testALabelFromAnApproverRunsTheForksHeadAndOneFromTheAuthorDoesNot() throws {
        let project = try forkProject(forks: "{policy: approved, label: ok-to-test, approvers: [maintainer]}")
        let head = try pullRequestHead(15, in: project)
        try standIn.setPullRequest(.github, repo: repository, number: 15, headSHA: head, headRepo: "forker/reader")
        let controller = try startController(in: project)
        defer { stop(controller) }
        func labeled(by sender: String) throws -> String {
            try forkPayload(number: 15, head: head)
                .replacingOccurrences(of: "\"action\": \"opened\",", with: "\"action\": \"labeled\",")
                .replacingOccurrences(
                    of: "\"sender\": {\n    \"login\": \"Codertocat\",",
                    with: "\"label\": {\"name\": \"ok-to-test\"},\n  \"sender\": {\n    \"login\": \"\(sender)\",")
        }
        let byAuthor = try deliver(try labeled(by: "forker"), to: controller)
        XCTAssertEqual(byAuthor.status, 202, byAuthor.answer)
        XCTAssertTrue(byAuthor.answer.contains("approves nothing"), byAuthor.answer)
        XCTAssertEqual(try runs(project).count, 0)

        let byMaintainer = try deliver(try labeled(by: "maintainer"), to: controller)
        XCTAssertEqual(byMaintainer.status, 202, byMaintainer.answer)
        XCTAssertTrue(byMaintainer.answer.contains("queued app-intents as run"), byMaintainer.answer)
        let record = try finishedRun(of: project, controller: controller)
        XCTAssertEqual(layer("logic", in: record)?["outcome"] as? String, "passed", output(of: controller))
        XCTAssertEqual((record["code"] as? [String: Any])?["level"] as? String, "untrusted")
        XCTAssertEqual((record["request"] as? [String: Any])?["requestedBy"] as? String, "github:maintainer")
    }
}
