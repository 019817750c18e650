import Foundation
import PipeTestSupport
import XCTest

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// The stand-in accepts what each forge's contract accepts, refuses what it refuses, and records both.
final class ForgeStandInRequestTests: XCTestCase {
    private var standIn: ForgeStandIn!
    private let sha = "6dcb09b5b57875f334f61aebed695e2e4193db5e"

    override func setUpWithError() throws { standIn = try ForgeStandIn.start() }
    override func tearDown() { standIn?.stop() }

    func testValidRequestsOfEachForgeAreAcceptedAndListed() throws {
        let github = try standIn.call(
            .github, "POST", "/repos/octo/app/statuses/\(sha)",
            json: ["state": "pending", "context": "pipe/app-intents/merge", "description": "queued"])
        XCTAssertEqual(github.status, 201, github.text)
        XCTAssertEqual(github.jsonObject?["state"] as? String, "pending")
        XCTAssertNotNil(github.jsonObject?["id"] as? Int)
        let combined = try standIn.call(.github, "GET", "/repos/octo/app/commits/\(sha)/status")
        XCTAssertEqual(combined.jsonObject?["state"] as? String, "pending")
        XCTAssertEqual(
            (combined.jsonObject?["statuses"] as? [[String: Any]])?.first?["context"] as? String,
            "pipe/app-intents/merge")

        let gitea = try standIn.call(
            .gitea, "POST", "/repos/octo/app/statuses/\(sha)", json: ["state": "warning", "context": "pipe/x/merge"])
        XCTAssertEqual(gitea.status, 201, gitea.text)
        XCTAssertEqual(gitea.jsonObject?["status"] as? String, "warning", "Gitea answers the state as `status`")
        let giteaList = try standIn.call(.gitea, "GET", "/repos/octo/app/statuses/\(sha)")
        XCTAssertEqual(giteaList.jsonArray?.count, 1)

        let gitlab = try standIn.call(
            .gitlab, "POST", "/projects/group%2Fapp/statuses/\(sha)",
            json: ["state": "running", "name": "pipe/x/merge", "description": "2 of 19 tests running"])
        XCTAssertEqual(gitlab.status, 201, gitlab.text)
        XCTAssertEqual(gitlab.jsonObject?["status"] as? String, "running")
        let gitlabList = try standIn.call(.gitlab, "GET", "/projects/group%2Fapp/repository/commits/\(sha)/statuses")
        XCTAssertEqual(gitlabList.jsonArray?.first?["name"] as? String, "pipe/x/merge")

        XCTAssertEqual(try standIn.invalidRequests().map(\.description), [])
        XCTAssertEqual(try standIn.objects(.github, "statuses").count, 1)
        XCTAssertEqual(
            try standIn.requests().map(\.operation),
            [
                "repos/create-commit-status", "repos/get-combined-status-for-ref", "repoCreateStatus",
                "repoListStatuses",
                "set_commit_status", "list_commit_statuses",
            ])
    }

    func testGitLabTakesTheStatusAsAQueryStringAsItsDocsShow() throws {
        let url = URL(string: standIn.apiBase(.gitlab).absoluteString + "/projects/17/statuses/\(sha)?state=success")!
        let answer = try LoopbackHTTP.send("POST", url, headers: ["PRIVATE-TOKEN": "glpat-standin"])
        XCTAssertEqual(answer.status, 201, answer.text)
        XCTAssertEqual(answer.jsonObject?["name"] as? String, "default")
    }

    func testCommentsAreListedEditedAndFoundByMarkerOnEachForge() throws {
        let paths: [(ForgeStandIn.Forge, String, String, String)] = [
            (.github, "/repos/octo/app/issues/2/comments", "/repos/octo/app/issues/comments/", "PATCH"),
            (.gitea, "/repos/octo/app/issues/2/comments", "/repos/octo/app/issues/comments/", "PATCH"),
            (.gitlab, "/projects/17/merge_requests/2/notes", "/projects/17/merge_requests/2/notes/", "PUT"),
        ]
        for (forge, list, edit, method) in paths {
            try standIn.addForeignComment(
                forge, repo: forge == .gitlab ? "17" : "octo/app", number: 2, body: "<!-- pipe:app-intents --> fake",
                login: "mallory")
            let created = try standIn.call(forge, "POST", list, json: ["body": "<!-- pipe:app-intents --> run 1"])
            XCTAssertEqual(created.status, 201, "\(forge): \(created.text)")
            let id = try XCTUnwrap(created.jsonObject?["id"] as? Int)
            let edited = try standIn.call(
                forge, method, "\(edit)\(id)", json: ["body": "<!-- pipe:app-intents --> run 2"])
            XCTAssertEqual(edited.status, 200, "\(forge): \(edited.text)")
            let listed = try XCTUnwrap(standIn.call(forge, "GET", list).jsonArray)
            let authorKey = forge == .gitlab ? "author" : "user"
            let ours = listed.filter {
                ($0["body"] as? String)?.hasPrefix("<!-- pipe:app-intents -->") == true
                    && (($0[authorKey] as? [String: Any])?[forge == .gitlab ? "username" : "login"] as? String)
                        == "pipe-bot"
            }
            XCTAssertEqual(listed.count, 2, "\(forge): the foreign comment is listed too")
            XCTAssertEqual(ours.map { $0["id"] as? Int }, [id], "\(forge)")
            XCTAssertEqual(ours.first?["body"] as? String, "<!-- pipe:app-intents --> run 2", "\(forge)")
        }
        XCTAssertEqual(try standIn.invalidRequests().map(\.description), [])
    }

    func testAnotherUsersCommentCanBeEditedOnGitHubOnlyAsOnTheForges() throws {
        let github = try standIn.addForeignComment(.github, repo: "octo/app", number: 2, body: "mine", login: "mallory")
        let edited = try standIn.call(
            .github, "PATCH", "/repos/octo/app/issues/comments/\(github)", json: ["body": "x"])
        XCTAssertEqual(edited.status, 200, "GitHub lets anyone with write access edit a comment: \(edited.text)")
        let gitea = try standIn.addForeignComment(.gitea, repo: "octo/app", number: 2, body: "mine", login: "mallory")
        XCTAssertEqual(
            try standIn.call(.gitea, "PATCH", "/repos/octo/app/issues/comments/\(gitea)", json: ["body": "x"]).status,
            403)
        let gitlab = try standIn.addForeignComment(.gitlab, repo: "17", number: 2, body: "mine", login: "mallory")
        XCTAssertEqual(
            try standIn.call(.gitlab, "PUT", "/projects/17/merge_requests/2/notes/\(gitlab)", json: ["body": "x"])
                .status,
            403)
        XCTAssertEqual(try standIn.objects(.gitea, "comments").first?["body"] as? String, "mine")
    }

    func testAPullRequestHeadCanBeMovedByTheTest() throws {
        try standIn.setPullRequest(.github, repo: "octo/app", number: 7, headSHA: sha, headRef: "feature")
        XCTAssertEqual(
            (try standIn.call(.github, "GET", "/repos/octo/app/pulls/7").jsonObject?["head"] as? [String: Any])?["sha"]
                as? String, sha)
        let older = String(repeating: "a", count: 40)
        try standIn.setPullRequest(.github, repo: "octo/app", number: 7, headSHA: older)
        XCTAssertEqual(
            (try standIn.call(.github, "GET", "/repos/octo/app/pulls/7").jsonObject?["head"] as? [String: Any])?["sha"]
                as? String, older, "a force-push moved the head backwards")
        try standIn.setPullRequest(.gitea, repo: "octo/app", number: 7, headSHA: sha)
        XCTAssertEqual(
            (try standIn.call(.gitea, "GET", "/repos/octo/app/pulls/7").jsonObject?["head"] as? [String: Any])?["sha"]
                as? String, sha)
        try standIn.setPullRequest(.gitlab, repo: "17", number: 7, headSHA: sha)
        XCTAssertEqual(
            try standIn.call(.gitlab, "GET", "/projects/17/merge_requests/7").jsonObject?["sha"] as? String, sha)
        XCTAssertEqual(try standIn.call(.github, "GET", "/repos/octo/app/pulls/8").status, 404)
    }

    func testEachKindOfInvalidRequestIsRefusedAsTheForgeWouldAndRecorded() throws {
        let statuses = "/repos/octo/app/statuses/\(sha)"
        let cases: [(String, ForgeStandIn.Forge, String, String, Any?, ForgeStandIn.Credential, Int, String)] = [
            ("missing field", .github, "POST", statuses, ["context": "c"], .standard, 422, "\"state\" wasn't supplied"),
            ("wrong enum", .github, "POST", statuses, ["state": "passed"], .standard, 422, "is not a member"),
            (
                "141-char description", .github, "POST", statuses,
                ["state": "success", "description": String(repeating: "d", count: 141)], .standard, 422,
                "description is too long (maximum is 140 characters)"
            ),
            ("wrong method", .github, "PUT", statuses, ["state": "success"], .standard, 404, "Not Found"),
            ("missing auth", .github, "POST", statuses, ["state": "success"], .none, 401, "Requires authentication"),
            (
                "no User-Agent", .github, "POST", statuses, ["state": "success"],
                .headers(["Authorization": "token ghp_standin", "User-Agent": ""]), 403, "User-Agent"
            ),
            (
                "65537-char comment", .github, "POST", "/repos/octo/app/issues/2/comments",
                ["body": String(repeating: "c", count: 65537)], .standard, 422, "maximum is 65536 characters"
            ),
            (
                "not an integer", .github, "POST", "/repos/octo/app/issues/two/comments", ["body": "x"], .standard, 404,
                "is not an integer"
            ),
            ("Gitea wrong enum", .gitea, "POST", statuses, ["state": "passed"], .standard, 422, "is not a member"),
            ("Gitea missing auth", .gitea, "POST", statuses, ["state": "success"], .none, 401, "token is required"),
            ("Gitea wrong method", .gitea, "DELETE", statuses, nil, .standard, 405, "Method Not Allowed"),
            (
                "GitLab GitHub's state name", .gitlab, "POST", "/projects/17/statuses/\(sha)", ["state": "failure"],
                .standard, 400, "state does not have a valid value"
            ),
            (
                "GitLab 256-char description", .gitlab, "POST", "/projects/17/statuses/\(sha)",
                ["state": "failed", "description": String(repeating: "d", count: 256)], .standard, 400,
                "is too long (maximum is 255 characters)"
            ),
            (
                "GitLab edit with POST", .gitlab, "POST", "/projects/17/merge_requests/2/notes/5", ["body": "x"],
                .standard, 405, "405"
            ),
            (
                "GitLab missing body", .gitlab, "POST", "/projects/17/merge_requests/2/notes", [:] as [String: Any],
                .standard, 400, "body is missing"
            ),
            ("GitLab missing auth", .gitlab, "GET", "/projects/17/merge_requests/2/notes", nil, .none, 401, "401"),
            (
                "GitLab wrong query enum", .gitlab, "GET", "/projects/17/merge_requests/2/notes?sort=sideways", nil,
                .standard, 400, "sort is invalid"
            ),
            (
                "GitHub wrong query enum", .github, "GET", "/repos/octo/app/commits/\(sha)/check-runs?filter=newest",
                nil,
                .standard, 422, "is not a member"
            ),
            (
                "Gitea token in the query", .gitea, "GET", "/repos/octo/app/statuses/\(sha)?token=gitea-standin", nil,
                .none, 401, "deprecated"
            ),
        ]
        for (name, forge, method, path, json, credential, status, message) in cases {
            let answer = try standIn.call(forge, method, path, json: json, credential: credential)
            XCTAssertEqual(answer.status, status, "\(name): \(answer.text)")
            let recorded = try XCTUnwrap(standIn.requests().last, name)
            XCTAssertFalse(recorded.valid, "\(name) is recorded as invalid")
            XCTAssertEqual(recorded.status, status, name)
            XCTAssertTrue(
                (recorded.problems + [answer.text]).contains { $0.contains(message) },
                "\(name): \(recorded.problems) / \(answer.text)")
        }
        XCTAssertEqual(try standIn.invalidRequests().count, cases.count)
        XCTAssertEqual(try standIn.objects(.github, "statuses").count, 0, "nothing refused was kept")
    }

    func testAChunkedBodyIsReadAsLibcurlStreamsIt() throws {
        var request = URLRequest(
            url: URL(string: standIn.apiBase(.github).absoluteString + "/repos/octo/app/statuses/\(sha)")!)
        request.httpMethod = "POST"
        request.setValue("token ghp_standin", forHTTPHeaderField: "Authorization")
        request.setValue("pipe-test", forHTTPHeaderField: "User-Agent")
        request.httpBodyStream = InputStream(data: Data(#"{"state":"success","context":"pipe/chunked"}"#.utf8))
        let answer = try LoopbackHTTP.send(request)
        XCTAssertEqual(answer.status, 201, answer.text)
        let recorded = try XCTUnwrap(standIn.requests().last)
        XCTAssertEqual(recorded.header("Transfer-Encoding"), "chunked", "\(recorded.headers)")
        XCTAssertEqual(try standIn.objects(.github, "statuses").first?["context"] as? String, "pipe/chunked")
    }

    func testForgejoIsHeldToItsOwnSwagger() throws {
        standIn.stop()
        standIn = try ForgeStandIn.start(.init(giteaFlavour: "forgejo"))
        let path = "/repos/octo/app/issues/2/comments"
        XCTAssertEqual(
            try standIn.call(.gitea, "POST", path, json: ["body": "b", "updated_at": "2024-11-07T10:00:00Z"]).status,
            201)
        let badDate = try standIn.call(.gitea, "POST", path, json: ["body": "b", "updated_at": "yesterday"])
        XCTAssertEqual(badDate.status, 422, badDate.text)
        XCTAssertTrue(badDate.text.contains("is not a date-time"), badDate.text)
    }

    func testTheRecordedHeadersHoldNoCredential() throws {
        _ = try standIn.call(.github, "GET", "/repos/octo/app/commits/\(sha)/status")
        _ = try standIn.call(.gitlab, "GET", "/projects/17/merge_requests/2/notes")
        let recorded = try standIn.requests()
        XCTAssertEqual(recorded.first?.header("Authorization"), "token …")
        XCTAssertEqual(recorded.last?.header("PRIVATE-TOKEN"), "…", "\(recorded.last?.headers ?? [:])")
        XCTAssertFalse(try standIn.requests().contains { $0.headers.values.contains { $0.contains("standin") } })
    }
}
