import Foundation
import PipeTestSupport
import XCTest

/// The merge gate through a forge, end to end: the forge stand-in delivers a pull request's webhook to the
/// controller, the run verifies the pull request's exact head (fetched by its own ref) on the emulated Mac, and its
/// commit statuses reach the stand-in, which checks every request against GitHub's published description.
final class ForgeLoopTests: ForgeLoopTestCase {
    func testAPullRequestGoesPendingThenSuccessAndAReplayOrForgeryRunsNothing() throws {
        let project = try forgeProject()
        let check = try project.pipe(["controller", "--check", "--config", "controller.yml"])
        XCTAssertEqual(check.exitCode, 0, check.combined)
        XCTAssertTrue(
            check.stdout.contains("forge github: github \(repository), webhook at /hooks/github, runs app-intents"),
            check.stdout)
        let head = try pullRequestHead(7, in: project)
        try standIn.setPullRequest(.github, repo: repository, number: 7, headSHA: head)
        let controller = try startController(in: project)
        defer { stop(controller) }
        let url = try hookURL(of: controller)
        let payload = try openedPayload(number: 7, head: head)

        let forged = try standIn.deliver(
            ForgeStandInDelivery(
                forge: "github", body: payload, url: url, secret: secret, signature: .incorrect,
                event: "pull_request"))
        XCTAssertEqual(forged.status, 401, forged.answer)
        let delivered = try standIn.deliver(
            ForgeStandInDelivery(forge: "github", body: payload, url: url, secret: secret, event: "pull_request"))
        XCTAssertEqual(delivered.status, 202, delivered.answer)
        XCTAssertTrue(delivered.answer.contains("queued app-intents"), delivered.answer)

        try waitUntil("the merge status is pending", timeout: 30) {
            try statuses(for: head).contains { $0["state"] as? String == "pending" }
        }
        try waitUntil("the merge status is success", timeout: 120) {
            try statuses(for: head).contains { $0["state"] as? String == "success" } || !controller.process.isRunning
        }
        let success = try XCTUnwrap(try statuses(for: head).last, output(of: controller))
        XCTAssertEqual(success["context"] as? String, "pipe/app-intents/merge")
        XCTAssertEqual(success["state"] as? String, "success", output(of: controller))

        let replay = try standIn.repeatDelivery(delivered.id, newDeliveryID: true, url: url)
        XCTAssertEqual(replay.status, 202, replay.answer)
        XCTAssertTrue(replay.answer.contains("replay"), replay.answer)

        // Closed and reopened at the verified commit: the earlier run stands, and its result is posted again.
        let reopened = try standIn.deliver(
            ForgeStandInDelivery(
                forge: "github", body: try self.payload("pull_request.reopened.octokit.json", number: 7, head: head),
                url: url, secret: secret, event: "pull_request"))
        XCTAssertTrue(reopened.answer.contains("already verifies this commit"), reopened.answer)
        try waitUntil("the result is posted again", timeout: 30) {
            try statuses(for: head).filter { $0["state"] as? String == "success" }.count == 2
        }

        let runs = try runs(project)
        XCTAssertEqual(runs.count, 1, "one run for one pull request head: \(runs)")
        XCTAssertEqual(runs.first?["commit"] as? String, head, "the pull request's exact head was verified")
        XCTAssertEqual(try standIn.invalidRequests().map(\.path), [], "every request matches GitHub's contract")
    }

    /// The outbox outlives its controller: a status refused for a moment is not lost when the controller is killed
    /// with -9 before it could send it again, and arrives once from the next controller.
    func testAStatusLeftUnsentByAKilledControllerArrivesOnceAfterItsRestart() throws {
        let project = try forgeProject()
        // No hosts: the run waits in the queue, so only the pending status is at stake.
        try FileManager.default.removeItem(at: project.url.appendingPathComponent(".pipe/hosts.yml"))
        let head = try pullRequestHead(8, in: project)
        try standIn.setPullRequest(.github, repo: repository, number: 8, headSHA: head)
        try standIn.script(ForgeStandInFault(.secondaryRateLimit, count: 1, path: "/statuses/", retryAfter: 2))
        let first = try startController(in: project)
        let delivered = try standIn.deliver(
            ForgeStandInDelivery(
                forge: "github", body: try openedPayload(number: 8, head: head), url: try hookURL(of: first),
                secret: secret, event: "pull_request"))
        XCTAssertEqual(delivered.status, 202, delivered.answer)
        let statusPosts = { try self.standIn.requests(forge: .github).filter { $0.path.contains("/statuses/") } }
        try waitUntil("the first status is refused by the rate limit", timeout: 20) { try !statusPosts().isEmpty }
        kill(first.pid, SIGKILL)
        _ = first.wait(timeout: 10)
        XCTAssertEqual(try statuses(for: head).count, 0, "nothing was applied before the kill")

        let second = try startController(in: project)
        defer { stop(second) }
        try waitUntil("the pending status arrives from the restarted controller", timeout: 30) {
            try !statuses(for: head).isEmpty
        }
        Thread.sleep(forTimeInterval: 2)
        let applied = try statuses(for: head)
        XCTAssertEqual(applied.map { $0["state"] as? String }, ["pending"], "applied once: \(applied)")
        XCTAssertEqual(try statusPosts().map(\.status), [403, 201], "refused once, then sent once")
    }

    /// A pull request whose own commit breaks a test turns its merge status to failure, saying which test.
    func testAFailingPullRequestIsAFailureThatNamesTheTest() throws {
        let project = try forgeProject()
        let head = try pullRequestHead(9, in: project) { project in
            try project.failCannedTest("testRejectsEmptyInput", scheme: "Reader", workspace: "examples/reader-app")
        }
        try standIn.setPullRequest(.github, repo: repository, number: 9, headSHA: head)
        let controller = try startController(in: project)
        defer { stop(controller) }
        let delivered = try standIn.deliver(
            ForgeStandInDelivery(
                forge: "github", body: try openedPayload(number: 9, head: head), url: try hookURL(of: controller),
                secret: secret, event: "pull_request"))
        XCTAssertEqual(delivered.status, 202, delivered.answer)
        try waitUntil("the merge status is failure", timeout: 120) {
            try statuses(for: head).contains { $0["state"] as? String == "failure" } || !controller.process.isRunning
        }
        let failure = try XCTUnwrap(try statuses(for: head).last, output(of: controller))
        XCTAssertEqual(failure["state"] as? String, "failure", output(of: controller))
        let description = failure["description"] as? String ?? ""
        XCTAssertTrue(description.contains("1 of") && description.contains("logic"), description)
        XCTAssertLessThanOrEqual(description.count, 140)
        try waitUntil("the pull request's comment is written", timeout: 30) {
            try !standIn.objects(.github, "comments").isEmpty
        }
        let comments = try standIn.objects(.github, "comments")
        XCTAssertEqual(comments.count, 1, "\(comments)")
        let body = comments.first?["body"] as? String ?? ""
        XCTAssertTrue(body.hasPrefix("<!-- pipe:comment pipeline=app-intents -->"), body)
        XCTAssertTrue(body.contains("testRejectsEmptyInput"), body)
        XCTAssertTrue(body.contains("XCTAssertEqual failed"), body)
        XCTAssertEqual(try standIn.invalidRequests().map(\.path), [])
    }

    /// The release gate waits for a tester: its status stays pending while the checklist awaits a sign-off, and
    /// turns success when someone signs with `pipe signoff`, through the controller's outbox.
    func testASignoffTurnsTheReleaseStatusGreen() throws {
        let project = try forgeProject()
        try commitReleaseChecklist(in: project)
        let head = try pullRequestHead(10, in: project)
        try standIn.setPullRequest(.github, repo: repository, number: 10, headSHA: head)
        let controller = try startController(in: project)
        defer { stop(controller) }
        _ = try standIn.deliver(
            ForgeStandInDelivery(
                forge: "github", body: try openedPayload(number: 10, head: head), url: try hookURL(of: controller),
                secret: secret, event: "pull_request"))
        func state(_ context: String) throws -> String? {
            try statuses(for: head).last { $0["context"] as? String == context }?["state"] as? String
        }
        try waitUntil("the merge gate passes", timeout: 120) {
            try state("pipe/app-intents/merge") == "success" || !controller.process.isRunning
        }
        XCTAssertEqual(try state("pipe/app-intents/release"), "pending", output(of: controller))

        let signed = try project.pipe([
            "signoff", "last", "shortcuts", "--result", "pass", "--by", "tester@example.com",
        ])
        XCTAssertEqual(signed.exitCode, 0, signed.combined)
        try waitUntil("the release status turns green", timeout: 30) {
            try state("pipe/app-intents/release") == "success"
        }
        XCTAssertEqual(try standIn.invalidRequests().map(\.path), [])
    }

    /// A host that is not set up is not the app's failure: the merge status is error, not failure.
    func testAHostConfigProblemIsAnError() throws {
        var config = try host.readConfig()
        config["schemesWithoutTestAction"] = ["Reader"]
        try host.writeConfig(config)
        let project = try forgeProject()
        let head = try pullRequestHead(11, in: project)
        try standIn.setPullRequest(.github, repo: repository, number: 11, headSHA: head)
        let controller = try startController(in: project)
        defer { stop(controller) }
        _ = try standIn.deliver(
            ForgeStandInDelivery(
                forge: "github", body: try openedPayload(number: 11, head: head), url: try hookURL(of: controller),
                secret: secret, event: "pull_request"))
        try waitUntil("the merge status is error", timeout: 120) {
            try statuses(for: head).contains { $0["state"] as? String == "error" } || !controller.process.isRunning
        }
        let error = try XCTUnwrap(try statuses(for: head).last, output(of: controller))
        XCTAssertEqual(error["state"] as? String, "error")
        XCTAssertTrue((error["description"] as? String ?? "").hasPrefix("host-config"), "\(error)")
    }

    /// A fork's pull request: under `never` it runs nothing; under `without-secrets` it runs on an untrusted host
    /// with the layer that needs a secret skipped, and its secret is never read.
    func testAForksPullRequestFollowsThePolicy() throws {
        let project = try forgeProject()
        try project.writeHostsFile(
            host.hostsFileEntry().replacingOccurrences(
                of: "    capacity: 1\n", with: "    capacity: 1\n    trust: untrusted\n"))
        try project.commit(
            "pipelines/app-intents.yml",
            logicPipeline(
                secrets: "secrets:\n  API_TOKEN: {env: PIPE_E2E_NEVER_SET}\n",
                more: """
                      intent:
                        plugin: xcodebuild-test
                        scheme: Reader
                        only-testing: [ReaderTests/ReadingIDTests]
                        secrets: [API_TOKEN]
                    """), message: "a layer with a secret")
        let head = try pullRequestHead(12, in: project)
        try standIn.setPullRequest(.github, repo: repository, number: 12, headSHA: head, headRepo: "forker/reader")
        // The first full_name of the payload is the head repository's: the fork.
        var payload = try openedPayload(number: 12, head: head)
        let first = try XCTUnwrap(payload.range(of: "\"\(repository)\""))
        payload.replaceSubrange(first, with: "\"forker/reader\"")

        var controller = try startController(in: project)
        var url = try hookURL(of: controller)
        let refused = try standIn.deliver(
            ForgeStandInDelivery(forge: "github", body: payload, url: url, secret: secret, event: "pull_request"))
        XCTAssertEqual(refused.status, 202, refused.answer)
        XCTAssertTrue(refused.answer.contains("forks.policy is never"), refused.answer)
        XCTAssertEqual(try runs(project).count, 0)
        stop(controller)

        try String(contentsOf: project.url.appendingPathComponent("forges.yml"), encoding: .utf8)
            .appending("\n    forks: {policy: without-secrets}\n")
            .write(to: project.url.appendingPathComponent("forges.yml"), atomically: true, encoding: .utf8)
        controller = try startController(in: project)
        defer { stop(controller) }
        url = try hookURL(of: controller)
        let accepted = try standIn.deliver(
            ForgeStandInDelivery(
                forge: "github", body: payload + " ", url: url, secret: secret, event: "pull_request"))
        XCTAssertEqual(accepted.status, 202, accepted.answer)
        try waitUntil("the fork's run ends", timeout: 120) {
            try runs(project).first.map(isEnded) ?? false || !controller.process.isRunning
        }
        let record = try project.lastRecord()
        XCTAssertEqual(layer("logic", in: record)?["outcome"] as? String, "passed", output(of: controller))
        let intent = try XCTUnwrap(layer("intent", in: record))
        XCTAssertEqual(intent["outcome"] as? String, "skipped")
        XCTAssertTrue(
            (intent["evidence"] as? [String] ?? []).joined().contains("forks: without-secrets"), "\(intent)")
        XCTAssertEqual((record["code"] as? [String: Any])?["level"] as? String, "untrusted")
    }

    /// A push to a pull request while its run is running cancels that run for real; its status says which commit
    /// superseded it, and the new head is verified.
    func testANewerPushSupersedesTheRunningRun() throws {
        let project = try forgeProject()
        // Only the first head's tests are slow: the run it starts is still running when the second push arrives.
        let first = try pullRequestHead(13, in: project) { project in
            try self.makeFirstTest(of: "ReadingIDTests", take: 30, in: project)
        }
        try standIn.setPullRequest(.github, repo: repository, number: 13, headSHA: first)
        let controller = try startController(in: project)
        defer { stop(controller) }
        let url = try hookURL(of: controller)
        _ = try standIn.deliver(
            ForgeStandInDelivery(
                forge: "github", body: try openedPayload(number: 13, head: first), url: url, secret: secret,
                event: "pull_request"))
        _ = waitUntilTestsRun(in: project, layer: "logic")

        let second = try pullRequestHead(13, in: project) { project in
            try project.shell(
                "echo 'a second push' > NOTES.md && git add NOTES.md && "
                    + "git -c user.email=e2e@pipe.test -c user.name=e2e commit -q -m 'a second push'")
        }
        try standIn.setPullRequest(.github, repo: repository, number: 13, headSHA: second)
        let pushed = try standIn.deliver(
            ForgeStandInDelivery(
                forge: "github",
                body: try payload("pull_request.synchronize.octokit.json", number: 13, head: second), url: url,
                secret: secret, event: "pull_request"))
        XCTAssertTrue(pushed.answer.contains("superseded by"), pushed.answer)

        try waitUntil("the first run's status says it was superseded", timeout: 60) {
            try statuses(for: first).contains { ($0["description"] as? String ?? "").contains("superseded by") }
        }
        let superseded = try XCTUnwrap(try statuses(for: first).last)
        XCTAssertEqual(superseded["state"] as? String, "error")
        XCTAssertTrue(
            (superseded["description"] as? String ?? "").contains("superseded by \(second.prefix(7))"), "\(superseded)")
        try waitUntil("the new head passes", timeout: 120) {
            try statuses(for: second).contains { $0["state"] as? String == "success" } || !controller.process.isRunning
        }
        try waitUntil("the first run ends cancelled", timeout: 60) {
            (try runs(project).first { $0["commit"] as? String == first }?["status"] as? String) == "cancelled"
        }
    }

    /// A push delivered after its branch moved on (the later push's delivery not here yet) is judged by the branch's
    /// head as the project's repository advertises it: it runs nothing; the push of the current head runs.
    func testALatePushRunsNothingOnceItsBranchHasMovedOn() throws {
        let project = try forgeProject()
        try project.shell(
            "git -c user.email=e2e@pipe.test -c user.name=e2e commit -q --allow-empty -m 'an older push'")
        let older = try CommandRunner.shell("git rev-parse HEAD", currentDirectory: project.url).stdout
            .trimmingCharacters(in: .whitespacesAndNewlines)
        try project.shell(
            "git -c user.email=e2e@pipe.test -c user.name=e2e commit -q --allow-empty -m 'a newer push'")
        let newer = try CommandRunner.shell("git rev-parse HEAD", currentDirectory: project.url).stdout
            .trimmingCharacters(in: .whitespacesAndNewlines)
        let forges = project.url.appendingPathComponent("forges.yml")
        try
            (try String(contentsOf: forges, encoding: .utf8) + "\n    push:\n      - branches: [main]\n"
            + "        pipelines: [app-intents]\n").write(to: forges, atomically: true, encoding: .utf8)
        let controller = try startController(in: project)
        defer { stop(controller) }
        let url = try hookURL(of: controller)

        func push(_ head: String) throws -> String {
            try standIn.deliver(
                ForgeStandInDelivery(
                    forge: "github", body: try pushPayload(head: head), url: url, secret: secret, event: "push")
            ).answer
        }
        let late = try push(older)
        XCTAssertTrue(late.contains("stale:"), late)
        XCTAssertTrue(late.contains("refs/heads/main is now at \(newer.prefix(12))"), late)
        XCTAssertTrue(late.contains("nothing superseded or run"), late)

        let current = try push(newer)
        XCTAssertTrue(current.contains("queued app-intents"), current)
    }
}
