import PipeCore
import PipeForge
import PipeTestSupport
import XCTest

/// Every request builder against the operation it names in Tests/ForgeContract: fields, types, enums, lengths.
final class ForgeRequestContractTests: XCTestCase {
    private func assertKeepsContract(
        _ request: ForgeRequest, _ forge: ForgeKind, operation: String, file: StaticString = #filePath,
        line: UInt = #line
    ) throws {
        let checker = try ForgeContractChecker.of(forge)
        XCTAssertEqual(
            checker.operation(of: request)?.id, operation, "\(request.method) \(request.path)", file: file, line: line)
        XCTAssertEqual(checker.problems(request), [], "\(request.method) \(request.target)", file: file, line: line)
    }

    func testTheCheckerRefusesWhatTheContractRefuses() throws {
        let checker = try ForgeContractChecker.of(.github)
        let path = "/repos/acme/reader/statuses/\(ForgeFixtures.sha)"
        let bad = ForgeRequest(
            method: .post, path: path,
            body: .object([
                ("state", .string("failed")), ("description", .string(String(repeating: "x", count: 141))),
                ("colour", .string("red")),
            ]))
        XCTAssertEqual(
            checker.problems(bad).sorted(),
            [
                "body.colour is not a field of the operation",
                "body.description has 141 characters; GitHub refuses past 140",
                "body.state = failed is not one of [\"error\", \"failure\", \"pending\", \"success\"]",
            ])
        let lab = try ForgeContractChecker.of(.gitlab)
        XCTAssertEqual(
            lab.problems(
                ForgeRequest(
                    method: .post, path: "/projects/7/statuses/\(ForgeFixtures.sha)",
                    body: .object([("state", .string("error"))]))),
            [
                "body.state = error is not one of [\"pending\", \"running\", \"success\", \"failed\", \"canceled\", \"skipped\"]"
            ])
        XCTAssertEqual(
            checker.problems(ForgeRequest(method: .get, path: "/repos/acme/reader/pulls/x")),
            ["path parameter pull_number is x, not an integer"])
    }

    func testStatusesForEveryStateKeepEachForgesContract() throws {
        let operations: [ForgeKind: String] = [
            .github: "repos/create-commit-status", .gitea: "repoCreateStatus", .gitlab: "set_commit_status",
        ]
        for forge in ForgeKind.allCases {
            let api = ForgeAPI(repository: ForgeFixtures.repository(forge))
            for state in ForgeFixtures.everyState {
                for gate in Gate.allCases {
                    var report = ForgeGateReport(
                        pipeline: "app-intents", gate: gate, state: state, runID: ForgeFixtures.runID)
                    try assertKeepsContract(
                        api.createStatus(
                            report, sha: ForgeFixtures.sha, baseURL: "https://pipe.example", branch: "feature/x"),
                        forge, operation: operations[forge]!)
                    report.isManual = true
                    try assertKeepsContract(
                        api.createStatus(report, sha: ForgeFixtures.sha), forge, operation: operations[forge]!)
                }
            }
            let long = ForgeGateReport(
                pipeline: "app-intents", gate: .merge,
                state: .couldNotJudge(.hostConfig, reason: String(repeating: "scheme 日本語 not shared ", count: 40)))
            try assertKeepsContract(
                api.createStatus(long, sha: ForgeFixtures.sha), forge, operation: operations[forge]!)
        }
    }

    func testCommentRequestsKeepEachForgesContract() throws {
        let operations: [ForgeKind: (create: String, list: String, edit: String)] = [
            .github: ("issues/create-comment", "issues/list-comments", "issues/update-comment"),
            .gitea: ("issueCreateComment", "issueGetComments", "issueEditComment"),
            .gitlab: ("create_mr_note", "list_mr_notes", "update_mr_note"),
        ]
        let huge = ForgeFixtures.comment(
            tests: ForgeFixtures.failingTests(3000, message: String(repeating: "x", count: 5000)))
        for forge in ForgeKind.allCases {
            let api = ForgeAPI(repository: ForgeFixtures.repository(forge))
            let body = huge.body(for: forge)
            try assertKeepsContract(
                api.createComment(pullRequest: 12, body: body), forge, operation: operations[forge]!.create)
            try assertKeepsContract(
                api.listComments(pullRequest: 12, page: 3), forge, operation: operations[forge]!.list)
            try assertKeepsContract(
                api.editComment(id: 998_877, pullRequest: 12, body: body), forge, operation: operations[forge]!.edit)
        }
        XCTAssertEqual(
            try ForgeAPI(repository: ForgeFixtures.repository(.gitlab)).editComment(id: 5, pullRequest: 12, body: "b")
                .method, .put)
        XCTAssertEqual(
            try ForgeAPI(repository: ForgeFixtures.repository(.gitea)).editComment(id: 5, pullRequest: 12, body: "b")
                .method, .patch)
    }

    func testPullRequestHeadRequests() throws {
        try assertKeepsContract(
            ForgeAPI(repository: ForgeFixtures.repository(.github)).pullRequest(12), .github, operation: "pulls/get")
        try assertKeepsContract(
            ForgeAPI(repository: ForgeFixtures.repository(.gitea)).pullRequest(12), .gitea,
            operation: "repoGetPullRequest")
        // GitLab's merge request endpoint is outside the contract pack: the documented path.
        XCTAssertEqual(
            try ForgeAPI(repository: ForgeFixtures.repository(.gitlab)).pullRequest(12).path,
            "/projects/ios%2Fapps%2Freader/merge_requests/12")
    }

    func testCheckRunRequestsKeepGitHubsContract() throws {
        let run = GitHubCheckRun(
            repository: ForgeFixtures.repository(.github), report: ForgeFixtures.report(.running),
            sha: ForgeFixtures.sha, comment: ForgeFixtures.comment(), failingTests: ForgeFixtures.failingTests(120),
            baseURL: "https://pipe.example")
        let now = Date(timeIntervalSince1970: 1_800_000_000)
        for state in ForgeFixtures.everyState {
            var each = run
            each.report = ForgeFixtures.report(state)
            try assertKeepsContract(each.create(at: now), .github, operation: "checks/create")
            try assertKeepsContract(each.update(checkRunID: 4, at: now), .github, operation: "checks/update")
        }
        for batch in try run.annotationBatches(checkRunID: 4, skippingFirst: 50) {
            try assertKeepsContract(batch, .github, operation: "checks/update")
        }
        try assertKeepsContract(run.list(appID: 42, page: 2), .github, operation: "checks/list-for-ref")
    }

    func testAppRequestsKeepGitHubsContract() throws {
        let app = try GitHubApp(appID: "42", privateKeyPEM: TestKeys.rsa2048().privatePEM)
        let now = Date(timeIntervalSince1970: 1_800_000_000)
        try assertKeepsContract(
            app.installationTokenRequest(installationID: 77, at: now), .github,
            operation: "apps/create-installation-access-token")
        try assertKeepsContract(
            app.installationTokenRequest(installationID: 77, repositories: ["reader"], at: now), .github,
            operation: "apps/create-installation-access-token")
        let check = ForgeTokenCheck(repository: ForgeFixtures.repository(.github), asGitHubApp: true)
        let ids = try check.requests().map { try ForgeContractChecker.of(.github).operation(of: $0.1)?.id }
        XCTAssertEqual(ids, ["apps/get-authenticated", "apps/get-repo-installation"])
    }

    /// The token checks' requests the pack describes keep it; the rest (`GET /user`, Gitea's and GitLab's project
    /// and token endpoints) are outside it, listed here so that a new one is noticed.
    func testTokenCheckRequests() throws {
        var outside: [String] = []
        for forge in ForgeKind.allCases {
            let checker = try ForgeContractChecker.of(forge)
            for (_, request) in try ForgeTokenCheck(repository: ForgeFixtures.repository(forge)).requests() {
                if checker.operation(of: request) == nil {
                    outside.append("\(forge) \(request.method.rawValue) \(request.path)")
                } else {
                    XCTAssertEqual(checker.problems(request), [])
                }
            }
        }
        XCTAssertEqual(
            outside,
            [
                "github GET /user", "gitea GET /repos/acme/reader", "gitea GET /user",
                "gitlab GET /personal_access_tokens/self", "gitlab GET /projects/ios%2Fapps%2Freader",
                "gitlab GET /user",
            ])
    }
}
