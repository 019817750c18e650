import Foundation
import PipeTestSupport
import XCTest

/// The forge loop on each way of reporting: GitHub as an App with check runs, Gitea (and so Forgejo), GitLab.
final class ForgeReportingKindsTests: ForgeLoopTestCase {
    /// As a GitHub App with `checks: true`: the installation token is exchanged for the app's JWT, a failing pull
    /// request's merge gate is a check run with conclusion failure found again by its `external_id`, no status is
    /// posted, and the comment is the app's.
    func testAGitHubAppReportsWithCheckRuns() throws {
        standIn.stop()
        let keys = try TemporaryDirectory(prefix: "pipe-e2e-app-key")
        defer { keys.remove() }
        let key = try ForgeStandInAppKey(in: keys.url)
        standIn = try ForgeStandIn.start(
            ForgeStandIn.Options(githubAppID: 4242, githubAppPublicKey: key.publicKey, githubInstallations: [77]))
        let project = try forgeProject()
        try FileManager.default.copyItem(
            at: key.privateKey, to: project.url.appendingPathComponent(".pipe/forge-secrets/app.pem"))
        let forges =
            try String(contentsOf: project.url.appendingPathComponent("forges.yml"), encoding: .utf8)
            .replacingOccurrences(of: "    token: {file: .pipe/forge-secrets/token}\n", with: "")
            + "\n    app: {id: 4242, private-key: {file: .pipe/forge-secrets/app.pem}, installation-id: 77}"
            + "\n    checks: true\n"
        try forges.write(to: project.url.appendingPathComponent("forges.yml"), atomically: true, encoding: .utf8)
        let head = try pullRequestHead(14, in: project) { project in
            try project.failCannedTest("testRejectsEmptyInput", scheme: "Reader", workspace: "examples/reader-app")
        }
        try standIn.setPullRequest(.github, repo: repository, number: 14, headSHA: head)
        let controller = try startController(in: project)
        defer { stop(controller) }
        let delivered = try standIn.deliver(
            ForgeStandInDelivery(
                forge: "github", body: try openedPayload(number: 14, head: head), url: try hookURL(of: controller),
                secret: secret, event: "pull_request"))
        XCTAssertEqual(delivered.status, 202, delivered.answer)
        func merge() throws -> [String: Any]? {
            try standIn.objects(.github, "check_runs").last { $0["name"] as? String == "pipe/app-intents/merge" }
        }
        try waitUntil("the merge check run concludes", timeout: 120) {
            try merge()?["conclusion"] as? String != nil || !controller.process.isRunning
        }
        let checkRun = try XCTUnwrap(try merge(), output(of: controller))
        XCTAssertEqual(checkRun["conclusion"] as? String, "failure", "\(checkRun)")
        XCTAssertEqual(
            try standIn.objects(.github, "check_runs").filter { $0["name"] as? String == "pipe/app-intents/merge" }
                .count, 1, "one check run, updated in place")
        XCTAssertEqual(try statuses(for: head).count, 0, "check runs replace the statuses")
        try waitUntil("the app's comment is written", timeout: 30) {
            try !standIn.objects(.github, "comments").isEmpty
        }
        let comment = try XCTUnwrap(try standIn.objects(.github, "comments").first)
        XCTAssertEqual((comment["user"] as? [String: Any])?["login"] as? String, "pipe-standin[bot]", "\(comment)")
        XCTAssertEqual(try standIn.invalidRequests().map(\.path), [])
    }

    /// The same loop on Gitea (Forgejo speaks the same API): its real payload, its bare-hex signature, its token
    /// header and its status API, checked against Gitea's swagger.
    func testAGiteaPullRequestGoesSuccess() throws {
        let status = try passingPullRequest(
            on: .gitea, token: "gitea-standin", payload: "pull_request_opened.go-scm.json",
            payloadRepository: "jcitizen/my-repo", payloadHead: "2eba238e33607c1fa49253182e9fff42baafa1eb",
            event: "pull_request", refPrefix: "refs/pull")
        XCTAssertEqual(status["context"] as? String, "pipe/app-intents/merge")
    }

    /// The same loop on GitLab: a merge request's hook with its shared token, the head fetched by
    /// `refs/merge-requests/N/head`, and GitLab's status API with `name` for the context.
    func testAGitLabMergeRequestGoesSuccess() throws {
        let status = try passingPullRequest(
            on: .gitlab, token: "glpat-standin", payload: "pull_request_create.go-scm.json",
            payloadRepository: "gitlab-org/hello-world", payloadHead: "c4c79227ed610f1151f05bbc5be33b4f340d39c8",
            event: nil, refPrefix: "refs/merge-requests")
        XCTAssertEqual(status["name"] as? String, "pipe/app-intents/merge")
    }

    /// A watched branch's run reports too, to the forge whose push rules run its pipeline: pending once its commit
    /// is checked out, then its verdict; the same push delivered by that forge's webhook gets the watch's run, not a
    /// second one.
    func testAWatchedBranchReportsAndItsPushWebhookReusesTheRun() throws {
        // The run's test takes long enough for its pending status to go out before its verdict replaces it.
        let project = try forgeProject(testSeconds: 2)
        try
            (try String(contentsOf: project.url.appendingPathComponent("forges.yml"), encoding: .utf8)
            + "\n    push:\n      - branches: [main]\n        pipelines: [app-intents]\n")
            .write(to: project.url.appendingPathComponent("forges.yml"), atomically: true, encoding: .utf8)
        try writeConfig(
            "http:\n  address: 127.0.0.1\n  port: 0\nwatches:\n  main:\n    pipeline: app-intents\n"
                + "    branches: [main]\n    interval: 1s\n", in: project)
        let controller = try startController(in: project)
        defer { stop(controller) }
        let url = try hookURL(of: controller)
        waitUntil("the watch has seen main", timeout: 30) {
            output(of: controller).contains("runs start with its next commit")
        }
        try project.shell(
            "echo change > NOTES && git add NOTES && git -c user.email=e2e@pipe.test -c user.name=e2e commit -qm change"
        )
        let head = try CommandRunner.shell("git rev-parse HEAD", currentDirectory: project.url).stdout
            .trimmingCharacters(in: .whitespacesAndNewlines)
        try waitUntil("the watch's run reports pending", timeout: 60) {
            try statuses(for: head).contains { $0["state"] as? String == "pending" } || !controller.process.isRunning
        }
        let pending = try XCTUnwrap(try statuses(for: head).first { $0["state"] as? String == "pending" })
        XCTAssertEqual(pending["context"] as? String, "pipe/app-intents/merge")
        XCTAssertTrue((pending["description"] as? String ?? "").contains("running"), "\(pending)")
        try waitUntil("the watch's run reports success", timeout: 120) {
            try statuses(for: head).contains { $0["state"] as? String == "success" } || !controller.process.isRunning
        }
        let push = try pushPayload(head: head)
        let delivered = try standIn.deliver(
            ForgeStandInDelivery(forge: "github", body: push, url: url, secret: secret, event: "push"))
        XCTAssertTrue(delivered.answer.contains("already verifies this commit"), delivered.answer)
        XCTAssertEqual(try runs(project).count, 1, "one run for the commit both saw")
        XCTAssertEqual(try standIn.invalidRequests().map(\.path), [])
    }

    /// Pull request (merge request) number 1 of `forge`, delivered from its real `payload` moved to the project's
    /// repository and head, verified to success, with one comment (note) by the token's user; the success status as
    /// the stand-in holds it.
    private func passingPullRequest(
        on forge: ForgeStandIn.Forge, token: String, payload: String, payloadRepository: String,
        payloadHead: String, event: String?, refPrefix: String
    ) throws -> [String: Any] {
        let project = try forgeProject()
        try """
        forges:
          \(forge.rawValue):
            kind: \(forge.rawValue)
            api-url: \(standIn.apiBase(forge).absoluteString)
            repository: \(repository)
            token: {file: .pipe/forge-secrets/\(forge.rawValue)-token}
            webhook: {secret: {file: .pipe/forge-secrets/hook}}
            pull-requests:
              - pipelines: [app-intents]
        """.write(to: project.url.appendingPathComponent("forges.yml"), atomically: true, encoding: .utf8)
        try (token + "\n").write(
            to: project.url.appendingPathComponent(".pipe/forge-secrets/\(forge.rawValue)-token"), atomically: true,
            encoding: .utf8)
        let head = try pullRequestHead(1, in: project, refPrefix: refPrefix)
        try standIn.setPullRequest(forge, repo: repository, number: 1, headSHA: head)
        let controller = try startController(in: project)
        defer { stop(controller) }
        let url = try hookURL(of: controller).deletingLastPathComponent().appendingPathComponent(forge.rawValue)
        let body = try String(
            contentsOf: RepositoryPaths.root.appendingPathComponent(
                "Tests/ForgeContract/\(forge.rawValue)/webhooks/\(payload)"), encoding: .utf8
        )
        .replacingOccurrences(of: payloadRepository, with: repository)
        .replacingOccurrences(of: payloadHead, with: head)
        let delivered = try standIn.deliver(
            ForgeStandInDelivery(forge: forge.rawValue, body: body, url: url, secret: secret, event: event))
        XCTAssertEqual(delivered.status, 202, delivered.answer)
        func success() throws -> [String: Any]? {
            try standIn.objects(forge, "statuses").last {
                ($0["sha"] as? String) == head && ($0["status"] ?? $0["state"]) as? String == "success"
            }
        }
        try waitUntil("the \(forge.rawValue) status is success", timeout: 120) {
            try success() != nil || !controller.process.isRunning
        }
        try waitUntil("the \(forge.rawValue) comment is written", timeout: 30) {
            try !standIn.objects(forge, "comments").isEmpty || !controller.process.isRunning
        }
        let comments = try standIn.objects(forge, "comments")
        XCTAssertEqual(comments.count, 1, "\(comments)")
        let author = comments.first?["user"] ?? comments.first?["author"]
        XCTAssertEqual(
            ((author as? [String: Any])?["login"] ?? (author as? [String: Any])?["username"]) as? String, "pipe-bot",
            "\(comments)")
        XCTAssertEqual(try standIn.invalidRequests().map(\.path), [])
        return try XCTUnwrap(try success(), output(of: controller))
    }
}
