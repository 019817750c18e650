import Foundation
import PipeTestSupport
import XCTest

/// `pipe forge approve`, `send` and `check`: the built `pipe` against the forge stand-in over real HTTP, with a
/// real run store, and every request Pipe makes held to the forge's published contract.
final class ForgeCommandTests: XCTestCase {
    private var project: TemporaryDirectory!
    private var standIn: ForgeStandIn!
    private let repository = "pipe-e2e/reader"
    private let fork = "contributor/reader"
    private let head = "3f2a9c1d4e5b6a7980c1d2e3f4a5b6c7d8e9f001"
    private let token = "ghp_standin"
    private let secret = "forge-command-webhook-secret"

    override func setUpWithError() throws {
        project = try TemporaryDirectory(prefix: "pipe-forge-command")
        try FileManager.default.createDirectory(at: project.appending("pipelines"), withIntermediateDirectories: true)
        try "layers:\n  logic:\n    plugin: xcodebuild-test\n    scheme: Reader\n".write(
            to: project.appending("pipelines/app-intents.yml"), atomically: true, encoding: .utf8)
        try FileManager.default.createDirectory(at: project.appending(".pipe"), withIntermediateDirectories: true)
        try writeSecret("token", token)
        try writeSecret("hook", secret)
        standIn = try ForgeStandIn.start()
    }

    override func tearDown() {
        standIn?.stop()
        project?.remove()
    }

    private func writeSecret(_ name: String, _ value: String) throws {
        try (value + "\n").write(to: project.appending(".pipe/\(name)"), atomically: true, encoding: .utf8)
    }

    /// forges.yml with one GitHub forge on the stand-in.
    private func writeForges(forks: String = "{policy: approved, command: true}", tokenFile: String = "token")
        throws
    {
        try """
        forges:
          github:
            kind: github
            api-url: \(standIn.apiBase(.github).absoluteString)
            repository: \(repository)
            token: {file: .pipe/\(tokenFile)}
            webhook: {secret: {file: .pipe/hook}}
            pull-requests:
              - pipelines: [app-intents]
            forks: \(forks)
        """.write(to: project.appending("forges.yml"), atomically: true, encoding: .utf8)
    }

    private func pipe(_ arguments: [String], environment: [String: String] = [:]) throws -> CommandResult {
        var merged = ProcessInfo.processInfo.environment
        for (key, value) in environment { merged[key] = value }
        return try CommandRunner.run(
            RepositoryPaths.pipeBinary, arguments, environment: merged, currentDirectory: project.url)
    }

    private func json(_ result: CommandResult) throws -> Any {
        try JSONSerialization.jsonObject(with: Data(result.stdout.utf8))
    }

    private func statuses() throws -> [[String: Any]] {
        try standIn.objects(.github, "statuses").filter { ($0["sha"] as? String ?? $0["commit"] as? String) == head }
    }

    // MARK: approve, then send

    func testApprovingAForkQueuesItsHeadAndSendPostsThePendingStatus() throws {
        try writeForges()
        try standIn.setPullRequest(.github, repo: repository, number: 9, headSHA: head, headRepo: fork)

        let approved = try pipe(["forge", "approve", "github", "9"])
        XCTAssertEqual(approved.exitCode, 0, approved.combined)
        XCTAssertTrue(approved.stdout.contains("approved pull request #9 of \(repository) at \(head)"), approved.stdout)
        XCTAssertTrue(approved.stdout.contains("queued app-intents as run"), approved.stdout)
        XCTAssertEqual(try statuses().count, 0, "approving writes to the outbox; nothing is posted yet")

        let sent = try pipe(["forge", "send", "--json"])
        XCTAssertEqual(sent.exitCode, 0, sent.combined)
        let report = try XCTUnwrap(try json(sent) as? [String: Any], sent.stdout)
        let items = try XCTUnwrap(report["sent"] as? [[String: Any]], sent.stdout)
        XCTAssertEqual(items.count, 1, sent.stdout)
        XCTAssertEqual(items.first?["forge"] as? String, "github")
        XCTAssertEqual((report["waiting"] as? [Any])?.count, 0, sent.stdout)
        XCTAssertEqual((report["failed"] as? [Any])?.count, 0, sent.stdout)
        let posted = try statuses()
        XCTAssertEqual(posted.map { $0["state"] as? String }, ["pending"], "\(posted)")
        XCTAssertEqual(posted.first?["context"] as? String, "pipe/app-intents/merge")

        let again = try pipe(["forge", "approve", "github", "9", "--sha", head])
        XCTAssertEqual(again.exitCode, 0, again.combined)
        XCTAssertTrue(
            again.stdout.contains("already verifies this commit"), "the store kept the first: \(again.stdout)")
        let nothing = try pipe(["forge", "send"])
        XCTAssertEqual(nothing.exitCode, 0, nothing.combined)
        XCTAssertTrue(nothing.stdout.contains("sent     github: status"), "the reused run's status again: \(nothing)")
        XCTAssertEqual(try standIn.invalidRequests().map(\.path), [], "every request matches GitHub's contract")
        XCTAssertFalse(approved.combined.contains(token) || sent.combined.contains(token), "the token is never shown")
    }

    func testApprovalIsRefusedWhenThePolicyOrThePullRequestDoesNotAllowIt() throws {
        try writeForges(forks: "never")
        try standIn.setPullRequest(.github, repo: repository, number: 9, headSHA: head, headRepo: fork)
        let never = try pipe(["forge", "approve", "github", "9"])
        XCTAssertEqual(never.exitCode, 2, never.combined)
        XCTAssertTrue(never.stderr.contains("its forks.policy is never"), never.stderr)
        XCTAssertTrue(never.stderr.contains("command: true"), "says what to set: \(never.stderr)")

        try writeForges()
        let moved = try pipe(["forge", "approve", "github", "9", "--sha", String(repeating: "a", count: 40)])
        XCTAssertEqual(moved.exitCode, 2, moved.combined)
        XCTAssertTrue(moved.stderr.contains("is now at \(head)"), moved.stderr)

        try standIn.setPullRequest(.github, repo: repository, number: 10, headSHA: head)
        let ownBranch = try pipe(["forge", "approve", "github", "10"])
        XCTAssertEqual(ownBranch.exitCode, 2, ownBranch.combined)
        XCTAssertTrue(ownBranch.stderr.contains("is not from a fork"), ownBranch.stderr)

        let unknown = try pipe(["forge", "approve", "githb", "9"])
        XCTAssertEqual(unknown.exitCode, 2, unknown.combined)
        XCTAssertTrue(unknown.stderr.contains("did you mean 'github'?"), unknown.stderr)
        let notANumber = try pipe(["forge", "approve", "github", "nine"])
        XCTAssertEqual(notANumber.exitCode, 2, notANumber.combined)

        let send = try pipe(["forge", "send"])
        XCTAssertTrue(send.stdout.contains("nothing to send"), "a refused approval queues nothing: \(send.combined)")
    }

    // MARK: send: waiting and failed

    func testSendKeepsWhatTheForgeAskedToWaitForAndFailsWhatItRefused() throws {
        try writeForges()
        try standIn.setPullRequest(.github, repo: repository, number: 9, headSHA: head, headRepo: fork)
        XCTAssertEqual(try pipe(["forge", "approve", "github", "9"]).exitCode, 0)

        try standIn.script(ForgeStandInFault(.badGateway, path: "/statuses/", method: "POST", forge: .github))
        let waits = try pipe(["forge", "send"])
        XCTAssertEqual(waits.exitCode, 0, "an update that waits is not a failure: \(waits.combined)")
        XCTAssertTrue(waits.stdout.contains("waiting  github: status"), waits.stdout)
        XCTAssertTrue(waits.stdout.contains(" until 20"), "says until when: \(waits.stdout)")
        XCTAssertTrue(waits.stdout.contains("502"), "and why: \(waits.stdout)")
        XCTAssertEqual(try statuses().count, 0)

        try writeForges()
        try standIn.reset()
        try standIn.setPullRequest(.github, repo: repository, number: 11, headSHA: head, headRepo: fork)
        let freshStore = ["--store", project.appending(".pipe/second.db").path]
        XCTAssertEqual(try pipe(freshStore + ["forge", "approve", "github", "11"]).exitCode, 0)
        try standIn.script(ForgeStandInFault(.unauthorized, path: "/statuses/", method: "POST", forge: .github))
        let refused = try pipe(freshStore + ["forge", "send", "--json"])
        XCTAssertEqual(refused.exitCode, 3, refused.combined)
        let report = try XCTUnwrap(try json(refused) as? [String: Any], refused.stdout)
        let failed = try XCTUnwrap(report["failed"] as? [[String: Any]], refused.stdout)
        XCTAssertEqual(failed.count, 1, refused.stdout)
        XCTAssertTrue((failed.first?["error"] as? String ?? "").contains("401"), refused.stdout)
    }

    // MARK: check

    func testCheckSaysTheTokenWorksAndTheSecretIsReadableWithoutShowingEither() throws {
        try writeForges()
        let result = try pipe(["forge", "check"])
        XCTAssertEqual(result.exitCode, 0, result.combined)
        XCTAssertTrue(result.stdout.contains("github (github, \(repository))"), result.stdout)
        XCTAssertTrue(result.stdout.contains("token works"), result.stdout)
        XCTAssertTrue(result.stdout.contains("statuses: "), result.stdout)
        XCTAssertTrue(result.stdout.contains("webhook secret: readable"), result.stdout)
        XCTAssertTrue(result.stdout.contains("  usable"), result.stdout)
        XCTAssertFalse(result.combined.contains(token) || result.combined.contains(secret), result.combined)

        let asJSON = try pipe(["forge", "check", "github", "--json"])
        XCTAssertEqual(asJSON.exitCode, 0, asJSON.combined)
        let forges = try XCTUnwrap(try json(asJSON) as? [[String: Any]], asJSON.stdout)
        XCTAssertEqual(forges.first?["token_works"] as? Bool, true, asJSON.stdout)
        XCTAssertEqual(forges.first?["webhook_secret_readable"] as? Bool, true, asJSON.stdout)
        XCTAssertEqual(forges.first?["usable"] as? Bool, true, asJSON.stdout)
    }

    func testCheckExitsThreeWhenTheTokenIsRefusedOrTheSecretCannotBeRead() throws {
        try writeSecret("wrong-token", "ghp_not-a-token-the-forge-knows")
        try writeForges(tokenFile: "wrong-token")
        let refused = try pipe(["forge", "check", "--json"])
        XCTAssertEqual(refused.exitCode, 3, refused.combined)
        let forges = try XCTUnwrap(try json(refused) as? [[String: Any]], refused.stdout)
        XCTAssertEqual(forges.first?["token_works"] as? Bool, false, refused.stdout)
        XCTAssertTrue(
            (forges.first?["problems"] as? [String] ?? []).contains { $0.contains("the token was refused") },
            refused.stdout)
        XCTAssertFalse(refused.combined.contains("ghp_not-a-token"), refused.combined)

        try writeForges()
        try FileManager.default.removeItem(at: project.appending(".pipe/hook"))
        let noSecret = try pipe(["forge", "check"])
        XCTAssertEqual(noSecret.exitCode, 3, noSecret.combined)
        XCTAssertTrue(noSecret.stdout.contains("webhook secret: cannot be read"), noSecret.stdout)
        XCTAssertTrue(noSecret.stdout.contains("cannot read the file"), "says where it looked: \(noSecret.stdout)")
        XCTAssertTrue(noSecret.stderr.contains("cannot be used: github"), noSecret.stderr)
    }

    func testCheckAsAGitHubAppSignsItsJWTAndReadsTheInstallationsPermissions() throws {
        let key = try ForgeStandInAppKey(in: project.url.appendingPathComponent(".pipe"))
        standIn.stop()
        standIn = try ForgeStandIn.start(ForgeStandIn.Options(githubAppID: 4242, githubAppPublicKey: key.publicKey))
        try writeForges()
        let forges = try String(contentsOf: project.appending("forges.yml"), encoding: .utf8)
        try
            (forges
            + "\n    app: {id: 4242, private-key: {file: .pipe/app-private-key.pem}, installation-id: 1}\n"
            + "    checks: true\n").write(to: project.appending("forges.yml"), atomically: true, encoding: .utf8)

        let result = try pipe(["forge", "check"])
        XCTAssertEqual(result.exitCode, 0, result.combined)
        XCTAssertTrue(result.stdout.contains("GitHub App 4242 works as "), result.stdout)
        XCTAssertTrue(result.stdout.contains("[bot]"), "comments are by the app's bot: \(result.stdout)")
        XCTAssertTrue(result.stdout.contains("statuses: yes"), result.stdout)
        XCTAssertTrue(result.stdout.contains("checks:   yes"), result.stdout)
        XCTAssertTrue(result.stdout.contains("comments: yes"), result.stdout)
        XCTAssertFalse(result.combined.contains("PRIVATE KEY"), result.combined)
        XCTAssertEqual(try standIn.invalidRequests().map(\.path), [], "the app's requests match GitHub's contract")
    }

    func testWithoutForgesYmlEveryForgeCommandSaysWhatToWrite() throws {
        let result = try pipe(["forge", "send"])
        XCTAssertEqual(result.exitCode, 2, result.combined)
        XCTAssertTrue(result.stderr.contains("has no forges.yml"), result.stderr)
    }
}

/// `pipe forge deliveries` lists what a running controller did with the deliveries it received, newest first.
final class ForgeDeliveriesCommandTests: ControllerTestCase {
    private let secret = "forge-deliveries-webhook-secret"

    /// A GitHub webhook payload of the contract pack, as the forge sends it.
    private func payload(_ name: String) throws -> String {
        try String(
            contentsOf: RepositoryPaths.root.appendingPathComponent("Tests/ForgeContract/github/webhooks/\(name)"),
            encoding: .utf8)
    }

    /// The port the controller printed it listens on.
    private func listeningPort(of controller: BackgroundPipe) throws -> String {
        let pattern = #"listening on http://127\.0\.0\.1:(\d+)"#
        waitUntil("the controller listens", timeout: 20) {
            output(of: controller).range(of: pattern, options: .regularExpression) != nil
                || !controller.process.isRunning
        }
        let text = output(of: controller)
        let found = try XCTUnwrap(text.range(of: pattern, options: .regularExpression), text)
        return String(text[found].split(separator: ":").last ?? "")
    }

    func testDeliveriesListsWhatTheControllerDidWithEachNewestFirst() throws {
        let standIn = try ForgeStandIn.start()
        defer { standIn.stop() }
        let project = try controllerProject()
        try secret.write(to: project.url.appendingPathComponent(".pipe/hook"), atomically: true, encoding: .utf8)
        try """
        forges:
          github:
            kind: github
            api-url: \(standIn.apiBase(.github).absoluteString)
            repository: Codertocat/Hello-World
            token: {env: PIPE_TEST_GITHUB_TOKEN}
            webhook: {secret: {file: .pipe/hook}}
            pull-requests: [{pipelines: [app-intents]}]
        """.write(to: project.url.appendingPathComponent("forges.yml"), atomically: true, encoding: .utf8)
        try writeConfig("http:\n  address: 127.0.0.1\n  port: 0\n", in: project)
        let controller = try startController(in: project)
        defer { stop(controller) }
        let url = try XCTUnwrap(URL(string: "http://127.0.0.1:\(try listeningPort(of: controller))/hooks/github"))

        let ping = try standIn.deliver(
            ForgeStandInDelivery(
                forge: "github", body: try payload("ping.octokit.json"), url: url, secret: secret, event: "ping",
                deliveryID: "ping-delivery-1"))
        XCTAssertEqual(ping.status, 202, ping.answer)
        let forged = try standIn.deliver(
            ForgeStandInDelivery(
                forge: "github", body: try payload("push.normal.probot.json"), url: url, secret: secret,
                signature: .incorrect, event: "push", deliveryID: "forged-delivery-2"))
        XCTAssertEqual(forged.status, 401, forged.answer)

        let listed = try project.pipe(["forge", "deliveries"])
        XCTAssertEqual(listed.exitCode, 0, listed.combined)
        let lines = listed.stdout.split(separator: "\n").map(String.init)
        XCTAssertEqual(lines.count, 2, listed.stdout)
        XCTAssertTrue(lines.first?.contains("github  refused 401") ?? false, "newest first: \(listed.stdout)")
        XCTAssertTrue(
            lines.last?.contains("accepted 202  ping  delivery ping-delivery-1: pong") ?? false, listed.stdout)

        let asJSON = try project.pipe(["forge", "deliveries", "--forge", "github", "--limit", "1", "--json"])
        XCTAssertEqual(asJSON.exitCode, 0, asJSON.combined)
        let entries = try XCTUnwrap(
            try JSONSerialization.jsonObject(with: Data(asJSON.stdout.utf8)) as? [[String: Any]], asJSON.stdout)
        XCTAssertEqual(entries.count, 1, asJSON.stdout)
        XCTAssertEqual(entries.first?["verdict"] as? String, "refused", asJSON.stdout)
        XCTAssertEqual(entries.first?["status"] as? Int, 401, asJSON.stdout)

        let unknown = try project.pipe(["forge", "deliveries", "--forge", "gitlab"])
        XCTAssertEqual(unknown.exitCode, 2, unknown.combined)
        XCTAssertTrue(unknown.stderr.contains("forges.yml has no forge 'gitlab'"), unknown.stderr)
    }
}
