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
        let project = try forgeProject()
        try """
        forges:
          gitea:
            kind: gitea
            api-url: \(standIn.apiBase(.gitea).absoluteString)
            repository: \(repository)
            token: {file: .pipe/forge-secrets/gitea-token}
            webhook: {secret: {file: .pipe/forge-secrets/hook}}
            comment: false
            pull-requests:
              - pipelines: [app-intents]
        """.write(to: project.url.appendingPathComponent("forges.yml"), atomically: true, encoding: .utf8)
        try "gitea-standin\n".write(
            to: project.url.appendingPathComponent(".pipe/forge-secrets/gitea-token"), atomically: true,
            encoding: .utf8)
        let head = try pullRequestHead(1, in: project)
        try standIn.setPullRequest(.gitea, repo: repository, number: 1, headSHA: head)
        let controller = try startController(in: project)
        defer { stop(controller) }
        let url = try hookURL(of: controller).deletingLastPathComponent().appendingPathComponent("gitea")
        let body = try String(
            contentsOf: RepositoryPaths.root.appendingPathComponent(
                "Tests/ForgeContract/gitea/webhooks/pull_request_opened.go-scm.json"), encoding: .utf8
        )
        .replacingOccurrences(of: "jcitizen/my-repo", with: repository)
        .replacingOccurrences(of: "2eba238e33607c1fa49253182e9fff42baafa1eb", with: head)
        let delivered = try standIn.deliver(
            ForgeStandInDelivery(forge: "gitea", body: body, url: url, secret: secret, event: "pull_request"))
        XCTAssertEqual(delivered.status, 202, delivered.answer)
        func giteaStatuses() throws -> [[String: Any]] {
            try standIn.objects(.gitea, "statuses").filter { ($0["sha"] as? String) == head }
        }
        try waitUntil("the Gitea status is success", timeout: 120) {
            try giteaStatuses().contains { ($0["status"] ?? $0["state"]) as? String == "success" }
                || !controller.process.isRunning
        }
        XCTAssertEqual(try giteaStatuses().last?["context"] as? String, "pipe/app-intents/merge")
        XCTAssertEqual(try standIn.invalidRequests().map(\.path), [])
    }

    /// The same loop on GitLab: a merge request's hook with its shared token, the head fetched by
    /// `refs/merge-requests/N/head`, and GitLab's status API with `name` for the context.
    func testAGitLabMergeRequestGoesSuccess() throws {
        let project = try forgeProject()
        try """
        forges:
          gitlab:
            kind: gitlab
            api-url: \(standIn.apiBase(.gitlab).absoluteString)
            repository: \(repository)
            token: {file: .pipe/forge-secrets/gitlab-token}
            webhook: {secret: {file: .pipe/forge-secrets/hook}}
            comment: false
            pull-requests:
              - pipelines: [app-intents]
        """.write(to: project.url.appendingPathComponent("forges.yml"), atomically: true, encoding: .utf8)
        try "glpat-standin\n".write(
            to: project.url.appendingPathComponent(".pipe/forge-secrets/gitlab-token"), atomically: true,
            encoding: .utf8)
        let head = try pullRequestHead(1, in: project, refPrefix: "refs/merge-requests")
        try standIn.setPullRequest(.gitlab, repo: repository, number: 1, headSHA: head)
        let controller = try startController(in: project)
        defer { stop(controller) }
        let url = try hookURL(of: controller).deletingLastPathComponent().appendingPathComponent("gitlab")
        let body = try String(
            contentsOf: RepositoryPaths.root.appendingPathComponent(
                "Tests/ForgeContract/gitlab/webhooks/pull_request_create.go-scm.json"), encoding: .utf8
        )
        .replacingOccurrences(of: "gitlab-org/hello-world", with: repository)
        .replacingOccurrences(of: "c4c79227ed610f1151f05bbc5be33b4f340d39c8", with: head)
        let delivered = try standIn.deliver(ForgeStandInDelivery(forge: "gitlab", body: body, url: url, secret: secret))
        XCTAssertEqual(delivered.status, 202, delivered.answer)
        func gitlabStatuses() throws -> [[String: Any]] {
            try standIn.objects(.gitlab, "statuses").filter { ($0["sha"] as? String) == head }
        }
        try waitUntil("the GitLab status is success", timeout: 120) {
            try gitlabStatuses().contains { ($0["status"] ?? $0["state"]) as? String == "success" }
                || !controller.process.isRunning
        }
        XCTAssertEqual(try gitlabStatuses().last?["name"] as? String, "pipe/app-intents/merge")
        XCTAssertEqual(try standIn.invalidRequests().map(\.path), [])
    }
}
