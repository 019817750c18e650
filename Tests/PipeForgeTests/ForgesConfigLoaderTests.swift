import Foundation
import PipeCore
import PipeForge
import PipeSpec
import PipeTestSupport
import XCTest

final class ForgesConfigLoaderTests: XCTestCase {
    let loader = ForgesConfigLoader(pipelines: ["app-intents", "release", "nightly"])

    func load(_ yaml: String) throws(SpecErrors) -> ForgesConfig {
        try loader.load(yaml: yaml, file: "forges.yml")
    }

    /// The problems of a file that must not load, one line each.
    func problems(_ yaml: String, file: StaticString = #filePath, line: UInt = #line) -> [String] {
        do {
            _ = try load(yaml)
            XCTFail("loaded, but should not have", file: file, line: line)
            return []
        } catch {
            return error.problems.map(\.description)
        }
    }

    /// A GitHub forge with its required keys, then `rest` (its further keys, indented by four spaces).
    func githubForge(_ rest: String) -> String {
        """
        forges:
          github:
            kind: github
            repository: acme/reader
            token: {env: T}
            webhook: {secret: {env: S}}

        """ + rest
    }

    func testEveryForgeKindWithItsSettingsIsRead() throws {
        let config = try load(
            """
            base-url: https://pipe.example.com/
            forges:
              ghe:
                kind: github
                api-url: https://ghe.example.com/api/v3
                repository: acme/reader
                webhook:
                  path: /hooks/ghe
                  secret: {env: GHE_WEBHOOK_SECRET}
                  body-limit: 10MiB
                push:
                  - branches: [main, "release/*"]
                    tags: ["v*"]
                    pipelines: [app-intents, release]
                pull-requests:
                  - pipelines: [app-intents]
                    branches: [main]
                    actions: [opened, synchronize]
                app:
                  id: 12345
                  private-key: {file: secrets/app.pem}
                  installation-id: 678
                checks: true
                comment: false
                supersede: false
                forks:
                  policy: approved
                  label: pipe-approved
                  approvers: [alice, bob]
                  chat-approvers: [U0123]
                  command: true
              forgejo:
                kind: gitea
                api-url: https://code.example.org/api/v1
                repository: acme/reader
                token: {file: secrets/forgejo-token}
                webhook: {secret: {file: secrets/forgejo-hook}}
                pull-requests: {pipelines: [app-intents]}
                forks: without-secrets
              gitlab:
                kind: gitlab
                api-url: https://gitlab.example.com/api/v4
                repository: mobile/ios/reader
                token: {env: GITLAB_TOKEN}
                webhook:
                  secret: {env: GITLAB_HOOK_TOKEN}
                  signing-token: {env: GITLAB_SIGNING_TOKEN}
                  timestamp-tolerance: 2m
                pull-requests:
                  - pipelines: [app-intents]
                    actions: [open, update, reopen]
            """)
        XCTAssertEqual(config.baseURL?.absoluteString, "https://pipe.example.com")
        XCTAssertEqual(config.runURL("20260101-1")?.absoluteString, "https://pipe.example.com/runs/20260101-1")
        XCTAssertEqual(config.forges.map(\.name), ["ghe", "forgejo", "gitlab"])

        let ghe = try XCTUnwrap(config.forge(named: "ghe"))
        XCTAssertEqual(ghe.kind, .github)
        XCTAssertEqual(ghe.apiURL.absoluteString, "https://ghe.example.com/api/v3")
        XCTAssertNil(ghe.token, "a GitHub App needs no token")
        XCTAssertEqual(ghe.webhook.secret, .environment("GHE_WEBHOOK_SECRET"))
        XCTAssertEqual(ghe.webhook.maxBodyBytes, 10 * 1024 * 1024)
        XCTAssertEqual(
            ghe.app, GitHubAppConfig(appID: 12345, privateKey: .file("secrets/app.pem"), installationID: 678))
        XCTAssertTrue(ghe.checksReplaceStatuses)
        XCTAssertFalse(ghe.comment)
        XCTAssertFalse(ghe.supersede)
        XCTAssertEqual(
            ghe.forks,
            .approved(
                ForkApproval(label: "pipe-approved", forgeUsers: ["alice", "bob"], chatUsers: ["U0123"], command: true))
        )
        XCTAssertEqual(ghe.pipelines(forPushTo: "refs/heads/release/2.0"), ["app-intents", "release"])
        XCTAssertEqual(ghe.pipelines(forPushTo: "refs/tags/v1.2"), ["app-intents", "release"])
        XCTAssertEqual(ghe.pipelines(forPushTo: "refs/heads/feature/x"), [])
        XCTAssertEqual(ghe.pipelines(forPushTo: "refs/tags/release/2.0"), [], "branch patterns match branches only")
        XCTAssertEqual(ghe.pipelines(forPullRequest: .synchronized, targeting: "main"), ["app-intents"])
        XCTAssertEqual(ghe.pipelines(forPullRequest: .reopened, targeting: "main"), [], "actions: leaves reopened out")
        XCTAssertEqual(ghe.pipelines(forPullRequest: .opened, targeting: "develop"), [])

        let forgejo = try XCTUnwrap(config.forge(forWebhookPath: "/hooks/gitea"))
        XCTAssertEqual(forgejo.name, "forgejo")
        XCTAssertEqual(forgejo.token, .file("secrets/forgejo-token"))
        XCTAssertEqual(forgejo.forks, .withoutSecrets)
        XCTAssertEqual(forgejo.pipelines(forPullRequest: .reopened, targeting: "anything"), ["app-intents"])
        XCTAssertEqual(forgejo.pullRequests.first?.actions, PullRequestRule.defaultActions)

        let gitlab = try XCTUnwrap(config.forge(forWebhookPath: "/hooks/gitlab"))
        XCTAssertEqual(gitlab.repository, "mobile/ios/reader")
        XCTAssertEqual(gitlab.webhook.signingToken, .environment("GITLAB_SIGNING_TOKEN"))
        XCTAssertEqual(gitlab.webhook.timestampToleranceSeconds, 120)
        XCTAssertEqual(gitlab.pullRequests.first?.actions, [.opened, .synchronized, .reopened])
    }

    func testDefaultsAreThePublicServicesAndTheDocumentedPaths() throws {
        let config = try load(
            """
            forges:
              github:
                kind: github
                repository: acme/reader
                token: {env: GITHUB_TOKEN}
                webhook: {secret: {env: GITHUB_WEBHOOK_SECRET}}
                push: {branches: [main], pipelines: [app-intents]}
              gitlab:
                kind: gitlab
                repository: "4861503"
                token: {env: GITLAB_TOKEN}
                webhook: {secret: {env: GITLAB_HOOK_TOKEN}}
                push: {branches: [main], pipelines: [app-intents]}
            """)
        let github = try XCTUnwrap(config.forge(named: "github"))
        XCTAssertEqual(github.apiURL.absoluteString, "https://api.github.com")
        XCTAssertEqual(github.webhook.path, "/hooks/github")
        XCTAssertEqual(github.webhook.maxBodyBytes, WebhookEndpointConfig.defaultMaxBodyBytes)
        XCTAssertEqual(github.forks, .never)
        XCTAssertTrue(github.comment)
        XCTAssertTrue(github.supersede)
        XCTAssertFalse(github.checksReplaceStatuses)
        XCTAssertNil(config.baseURL)
        XCTAssertNil(config.runURL("1"), "no link without base-url")
        let gitlab = try XCTUnwrap(config.forge(named: "gitlab"))
        XCTAssertEqual(gitlab.apiURL.absoluteString, "https://gitlab.com/api/v4")
        XCTAssertEqual(gitlab.webhook.path, "/hooks/gitlab")
        XCTAssertEqual(gitlab.repository, "4861503", "a project id")
        XCTAssertEqual(gitlab.webhook.timestampToleranceSeconds, 300)
    }

    func testASecretWrittenInPlaceIsRefusedWithWhatToWriteAndNotRepeated() {
        let found = problems(
            """
            forges:
              github:
                kind: github
                repository: acme/reader
                token: ghp_s3cr3tTokenValue
                webhook:
                  secret: hunter2-webhook
                push: {branches: [main], pipelines: [app-intents]}
            """)
        XCTAssertEqual(found.count, 2, found.joined(separator: "\n"))
        XCTAssertTrue(found[0].hasPrefix("forges.yml:5:12: error: forges.github.token: the API token itself is never"))
        XCTAssertTrue(found[0].contains("`token: {env: VARIABLE}` or `{file: path}`"), found[0])
        XCTAssertTrue(found[1].hasPrefix("forges.yml:7:15: error: forges.github.webhook.secret: the webhook secret"))
        XCTAssertFalse(found.joined().contains("ghp_s3cr3t") || found.joined().contains("hunter2"), "never echoed")
    }

    func testUnknownKeysSuggestTheNearestWithTheirPosition() {
        let found = problems(
            """
            forges:
              github:
                kind: github
                repository: acme/reader
                tokn: {env: GITHUB_TOKEN}
                webhook: {secret: {env: S}, pth: /x}
                push: {branches: [main], pipelines: [app-intents]}
                fork: never
            """)
        let text = found.joined(separator: "\n")
        XCTAssertTrue(
            text.contains("forges.yml:5:5: error: forges.github.tokn: unknown key; did you mean 'token'?"), text)
        XCTAssertTrue(text.contains("forges.github.webhook.pth: unknown key; did you mean 'path'?"), text)
        XCTAssertTrue(
            text.contains("forges.yml:8:5: error: forges.github.fork: unknown key; did you mean 'forks'?"), text)
        XCTAssertTrue(text.contains("missing required key 'token'"), text)
    }

    func testTwoForgesOnOnePathAreRefused() {
        let found = problems(
            """
            forges:
              one:
                kind: github
                repository: acme/reader
                token: {env: T1}
                webhook: {secret: {env: S1}}
                push: {branches: [main], pipelines: [app-intents]}
              two:
                kind: github
                repository: acme/other
                token: {env: T2}
                webhook: {secret: {env: S2}}
                push: {branches: [main], pipelines: [app-intents]}
              three:
                kind: gitea
                api-url: https://gitea.example.com/api/v1
                repository: acme/reader
                token: {env: T3}
                webhook: {path: /hooks/github, secret: {env: S3}}
                push: {branches: [main], pipelines: [app-intents]}
            """)
        XCTAssertEqual(found.count, 2, found.joined(separator: "\n"))
        XCTAssertTrue(
            found[0].hasPrefix("forges.yml:12:14: error: forges.two.webhook.path: forge 'one' already"), found[0])
        XCTAssertTrue(found[0].contains("/hooks/github-two"), "suggests a path of its own: \(found[0])")
        XCTAssertTrue(found[1].hasPrefix("forges.yml:19:21: error: forges.three.webhook.path: forge 'one'"), found[1])
    }

    func testPipelinesMustExistInTheProject() {
        let found = problems(
            githubForge(
                """
                    push: [{branches: [main], pipelines: [app-intent]}]
                    pull-requests: [{pipelines: [unknown-one]}]
                """))
        XCTAssertTrue(
            found[0].hasPrefix(
                "forges.yml:7:43: error: forges.github.push[0].pipelines[0]: no pipeline 'app-intent' in pipelines/; "
                    + "did you mean 'app-intents'?"), found[0])
        XCTAssertTrue(
            found[1].contains("no pipeline 'unknown-one' in pipelines/ (pipelines: app-intents, release, nightly)"),
            found[1])
    }

    func testSettingsOfOtherKindsAreRefused() {
        let found = problems(
            """
            forges:
              gitea:
                kind: gitea
                repository: acme/reader
                token: {env: T}
                webhook: {secret: {env: S}, signing-token: {env: X}}
                app: {id: 1, private-key: {file: k.pem}, installation-id: 2}
                checks: true
                push: {branches: [main], pipelines: [app-intents]}
              github:
                kind: github
                repository: acme/reader/extra
                token: {env: T}
                webhook: {secret: {env: S}, timestamp-tolerance: 1m}
                checks: true
                pull-requests: {pipelines: [app-intents], actions: [merged]}
            """)
        let text = found.joined(separator: "\n")
        XCTAssertTrue(text.contains("forges.gitea: missing required key 'api-url'"), text)
        XCTAssertTrue(text.contains("forges.gitea.webhook.signing-token: is GitLab's"), text)
        XCTAssertTrue(text.contains("forges.gitea.app: GitHub Apps are GitHub's"), text)
        XCTAssertTrue(text.contains("forges.gitea.checks: check runs are GitHub's"), text)
        XCTAssertTrue(
            text.contains("forges.github.repository: 'acme/reader/extra' is not a repository of github"), text)
        XCTAssertTrue(text.contains("forges.github.webhook.timestamp-tolerance: is used only with signing-token"), text)
        XCTAssertTrue(text.contains("forges.github.checks: check runs need a GitHub App"), text)
        XCTAssertTrue(text.contains("pull-requests.actions[0]: 'merged' is not an action that runs pipelines"), text)
    }

    func testForkPolicies() throws {
        func forks(_ value: String) throws -> ForkPolicy {
            let config = try load(
                githubForge(
                    """
                        pull-requests: {pipelines: [app-intents]}
                        forks: \(value)
                    """))
            return config.forges[0].forks
        }
        XCTAssertEqual(try forks("never"), .never)
        XCTAssertEqual(try forks("{policy: without-secrets}"), .withoutSecrets)
        XCTAssertEqual(try forks("{policy: approved, command: true}"), .approved(ForkApproval(command: true)))
        let approval = ForkApproval(label: "ok-to-test", forgeUsers: ["alice"])
        XCTAssertEqual(try forks("{policy: approved, label: ok-to-test, approvers: alice}"), .approved(approval))
        XCTAssertTrue(approval.labelApproves("ok-to-test", addedBy: "alice"))
        XCTAssertFalse(approval.labelApproves("ok-to-test", addedBy: "mallory"), "only approvers' labels count")
        XCTAssertFalse(approval.labelApproves("other", addedBy: "alice"))

        for (value, expected) in [
            ("approved", "approved needs who may approve"),
            ("sometimes", "'sometimes' is not a fork policy"),
            ("{policy: approved}", "say how a fork's pull request is approved"),
            ("{policy: approved, label: ok}", "a label approves only when someone named under approvers: adds it"),
            ("{policy: approved, approvers: [a], command: true}", "give the label too"),
            ("{policy: never, label: ok}", "forges.github.forks.label: is used only with `policy: approved`"),
            ("{policy: aproved}", "did you mean 'approved'?"),
        ] {
            XCTAssertThrowsError(try forks(value), value) { error in
                let text = (error as? SpecErrors)?.description ?? "\(error)"
                XCTAssertTrue(text.contains(expected), "\(value): \(text)")
            }
        }
    }

    func testValuesThatCannotBeUsedAreRefusedWithWhatToWrite() {
        let found = problems(
            """
            base-url: ftp://pipe.example.com
            forges:
              github:
                kind: gihub
              gitea:
                kind: gitea
                api-url: "https://gitea.example.com/api/v1?x=1"
                repository: acme/reader
                token: {env: T, file: t}
                webhook: {path: "hooks/gitea", secret: {env: S}, body-limit: 100GB}
                push:
                  - branches: ["../main", "-x", "refs/remotes/origin/main"]
                    pipelines: []
                  - pipelines: [app-intents]
            """)
        let text = found.joined(separator: "\n")
        XCTAssertTrue(text.contains("forges.yml:1:11: error: base-url: 'ftp://pipe.example.com' is not a URL"), text)
        XCTAssertTrue(text.contains("forges.github.kind: 'gihub' is not one of 'github', 'gitea' or 'gitlab'"), text)
        XCTAssertTrue(text.contains("forges.gitea.api-url: 'https://gitea.example.com/api/v1?x=1' is not a URL"), text)
        XCTAssertTrue(text.contains("forges.gitea.token: give 'env:' or 'file:', not both"), text)
        XCTAssertTrue(text.contains("forges.gitea.webhook.path: 'hooks/gitea' is not an endpoint path"), text)
        XCTAssertTrue(text.contains("forges.gitea.webhook.body-limit: expected a size from 1KiB to 25MB"), text)
        XCTAssertTrue(text.contains("forges.gitea.push[0].branches[0]: '../main' is not a ref name"), text)
        XCTAssertTrue(text.contains("forges.gitea.push[0].branches[2]: 'refs/remotes/origin/main' is a full ref"), text)
        XCTAssertTrue(text.contains("forges.gitea.push[0].pipelines: no pipelines; name at least one"), text)
        XCTAssertTrue(text.contains("forges.gitea.push[1]: say which pushes run"), text)
    }

    func testPlainHTTPIsAWarningAndAForgeThatRunsNothingToo() throws {
        let url = try TemporaryDirectory(prefix: "forges")
        defer { url.remove() }
        let file = url.appending(ForgesConfigLoader.fileName)
        try """
        forges:
          gitea:
            kind: gitea
            api-url: http://gitea.internal:3000/api/v1
            repository: acme/reader
            token: {env: T}
            webhook: {secret: {env: S}}
        """.write(to: file, atomically: true, encoding: .utf8)
        let (config, warnings) = try loader.check(file)
        XCTAssertEqual(config.forges.count, 1)
        XCTAssertEqual(warnings.count, 2, warnings.map(\.description).joined(separator: "\n"))
        XCTAssertTrue(warnings[0].description.contains("forges.gitea: neither push: nor pull-requests:"))
        XCTAssertTrue(warnings[1].description.contains("4:14: warning: forges.gitea.api-url: plain http"))
        XCTAssertEqual(try loader.load(projectDirectory: url.url)?.forges.first?.name, "gitea")
    }

    func testAProjectWithoutTheFileHasNoForges() throws {
        let folder = try TemporaryDirectory(prefix: "forges")
        defer { folder.remove() }
        XCTAssertNil(try loader.load(projectDirectory: folder.url))
        XCTAssertThrowsError(try load("")) { error in
            XCTAssertTrue("\(error)".contains("the file is empty; add 'forges:'"), "\(error)")
        }
    }
}
