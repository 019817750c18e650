import Foundation
import PipeTestSupport
import XCTest

/// What the forge loop's end-to-end tests share: a forge stand-in per test, a project whose forges.yml sends its
/// pull requests to app-intents, pull request heads published only under their own refs, and the forges' real
/// payloads moved to the project's repository.
class ForgeLoopTestCase: ControllerTestCase {
    var standIn: ForgeStandIn!
    let repository = "pipe-e2e/reader"
    let secret = "forge-loop-webhook-secret"

    override func setUpWithError() throws {
        try super.setUpWithError()
        standIn = try ForgeStandIn.start()
    }

    override func tearDown() {
        standIn?.stop()
        super.tearDown()
    }

    /// A project whose forges.yml sends its pull requests to app-intents, with a controller listening on port 0;
    /// `testSeconds`: how long its first test takes.
    func forgeProject(testSeconds: Double? = nil) throws -> PipeProject {
        let project = try controllerProject(testSeconds: testSeconds)
        let secrets = project.url.appendingPathComponent(".pipe/forge-secrets", isDirectory: true)
        try FileManager.default.createDirectory(at: secrets, withIntermediateDirectories: true)
        try "ghp_standin\n".write(to: secrets.appendingPathComponent("token"), atomically: true, encoding: .utf8)
        try secret.write(to: secrets.appendingPathComponent("hook"), atomically: true, encoding: .utf8)
        try """
        forges:
          github:
            kind: github
            api-url: \(standIn.apiBase(.github).absoluteString)
            repository: \(repository)
            token: {file: .pipe/forge-secrets/token}
            webhook: {secret: {file: .pipe/forge-secrets/hook}}
            pull-requests:
              - pipelines: [app-intents]
        """.write(to: project.url.appendingPathComponent("forges.yml"), atomically: true, encoding: .utf8)
        try writeConfig("http:\n  address: 127.0.0.1\n  port: 0\n", in: project)
        return project
    }

    /// Commits a change on a branch, publishes it only as `refs/pull/<number>/head` (as a fork's commits are on the
    /// forge), and returns its SHA.
    func pullRequestHead(
        _ number: Int, in project: PipeProject, refPrefix: String = "refs/pull",
        change: ((PipeProject) throws -> Void)? = nil
    ) throws -> String {
        try project.shell("git checkout -q -b pr-work")
        if let change {
            try change(project)
        } else {
            try project.shell(
                "echo 'a change under review' > NOTES.md && git add NOTES.md && "
                    + "git -c user.email=e2e@pipe.test -c user.name=e2e commit -q -m 'the change under review'")
        }
        let sha = try CommandRunner.shell("git rev-parse HEAD", currentDirectory: project.url).stdout
            .trimmingCharacters(in: .whitespacesAndNewlines)
        try project.shell(
            "git checkout -q - && git branch -q -D pr-work && git update-ref \(refPrefix)/\(number)/head \(sha)")
        return sha
    }

    /// GitHub's real `pull_request` `opened` payload, moved to this repository and head.
    func openedPayload(number: Int, head: String) throws -> String {
        try payload("pull_request.opened.octokit.json", number: number, head: head)
    }

    /// One of GitHub's real `pull_request` payloads, moved to this repository, pull request and head.
    func payload(_ file: String, number: Int, head: String) throws -> String {
        let url = RepositoryPaths.root.appendingPathComponent("Tests/ForgeContract/github/webhooks/\(file)")
        return try String(contentsOf: url, encoding: .utf8)
            .replacingOccurrences(of: "Codertocat/Hello-World", with: repository)
            .replacingOccurrences(of: "ec26c3e57ca3a959ca5aad62de7213c562f8c821", with: head)
            .replacingOccurrences(of: "\"number\": 2,", with: "\"number\": \(number),")
    }

    /// GitHub's real `push` payload, moved to this repository's `main` and `head`.
    func pushPayload(head: String) throws -> String {
        try String(
            contentsOf: RepositoryPaths.root.appendingPathComponent(
                "Tests/ForgeContract/github/webhooks/push.normal.probot.json"), encoding: .utf8
        )
        .replacingOccurrences(of: "bkeepers-inc/test", with: repository)
        .replacingOccurrences(of: "refs/heads/bkeepers-patch-3", with: "refs/heads/main")
        .replacingOccurrences(of: "738a951dba49dfec487000ef85ae80291d7ab32a", with: head)
    }

    func hookURL(of controller: BackgroundPipe) throws -> URL {
        var port: String?
        waitUntil("the controller listens", timeout: 20) {
            let text = output(of: controller)
            port = text.range(of: #"listening on http://127\.0\.0\.1:(\d+)"#, options: .regularExpression).map {
                String(text[$0].split(separator: ":").last ?? "")
            }
            return port != nil || !controller.process.isRunning
        }
        guard let port else {
            throw EmulatedMacHostError(
                message: "the controller does not listen:\n\(controller.wait(timeout: 5).combined)")
        }
        return try XCTUnwrap(URL(string: "http://127.0.0.1:\(port)/hooks/github"))
    }

    /// The project's one-layer pipeline with `more` layers (indented as layers are) and a `secrets:` section.
    func logicPipeline(secrets: String = "", more: String) -> String {
        """
        repository:
          workspace: examples/reader-app
        simulator:
          device: iPhone 15
        \(secrets)layers:
          logic:
            plugin: xcodebuild-test
            scheme: Reader
            only-testing: [ReaderTests/ReadingIDTests]
        \(more)

        """
    }

    /// Commits the one-layer pipeline with a release checklist, `shortcuts`, after it.
    func commitReleaseChecklist(in project: PipeProject) throws {
        try project.commit(
            "pipelines/app-intents.yml",
            logicPipeline(
                more: """
                      shortcuts:
                        plugin: checklist
                        needs: [logic]
                        items: [Run "Check Reading ID" in Shortcuts with a valid ID]
                    """), message: "a release checklist")
    }

    func statuses(for sha: String) throws -> [[String: Any]] {
        try standIn.objects(.github, "statuses").filter { ($0["sha"] as? String ?? $0["commit"] as? String) == sha }
    }
}
