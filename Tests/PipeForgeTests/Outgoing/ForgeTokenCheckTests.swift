import PipeForge
import XCTest

/// `pipe forge check`: which endpoints tell whether a token works and may post statuses, checks and comments.
final class ForgeTokenCheckTests: XCTestCase {
    private func answer(_ status: Int, _ body: String, _ headers: [(String, String)] = []) -> ForgeResponse {
        ForgeResponse(status: status, headers: headers, body: Array(body.utf8))
    }

    func testTheRequestsOfEachForge() throws {
        func paths(_ forge: ForgeKind, app: Bool = false) throws -> [String] {
            try ForgeTokenCheck(repository: ForgeFixtures.repository(forge), asGitHubApp: app).requests()
                .map { "\($0.0.rawValue) \($0.1.method.rawValue) \($0.1.path)" }
        }
        XCTAssertEqual(try paths(.github), ["repository GET /repos/acme/reader", "identity GET /user"])
        XCTAssertEqual(
            try paths(.github, app: true), ["app GET /app", "installation GET /repos/acme/reader/installation"])
        XCTAssertEqual(try paths(.gitea), ["repository GET /repos/acme/reader", "identity GET /user"])
        XCTAssertEqual(
            try paths(.gitlab),
            [
                "token-scopes GET /personal_access_tokens/self", "repository GET /projects/ios%2Fapps%2Freader",
                "identity GET /user",
            ])
    }

    func testAGitHubClassicTokenIsJudgedByItsScopes() {
        let check = ForgeTokenCheck(repository: ForgeFixtures.repository(.github))
        let report = check.judge([
            .repository: answer(
                200, #"{"permissions":{"push":true,"pull":true}}"#, [("X-OAuth-Scopes", "public_repo, read:org")]),
            .identity: answer(200, #"{"login":"pipe-bot","id":41}"#),
        ])
        XCTAssertTrue(report.tokenWorks)
        XCTAssertEqual(report.identity, ForgeAuthor(id: 41, login: "pipe-bot"))
        XCTAssertEqual(report.statuses, .no("the classic token lacks the `repo:status` (or `repo`) scope"))
        XCTAssertEqual(report.comments, .yes)
        XCTAssertEqual(report.checks, .no("check runs need a GitHub App"))
        let fine = check.judge([.repository: answer(200, #"{"permissions":{"push":true}}"#)])
        guard case .unknown = fine.statuses else { return XCTFail("a fine-grained token's permissions are not shown") }
        let readOnly = check.judge([.repository: answer(200, #"{"permissions":{"push":false}}"#)])
        XCTAssertEqual(
            readOnly.statuses, .no("the token's user cannot write to the repository (permissions.push is false)"))
    }

    func testARefusedTokenOrAnUnseenRepositoryIsTheProblem() {
        let check = ForgeTokenCheck(repository: ForgeFixtures.repository(.gitea))
        let refused = check.judge([.repository: answer(401, #"{"message":"token is required"}"#)])
        XCTAssertFalse(refused.tokenWorks)
        XCTAssertEqual(refused.problem, "the token was refused: Gitea answered 401: token is required")
        let hidden = check.judge([
            .repository: answer(404, #"{"message":"Not Found"}"#), .identity: answer(200, #"{"login":"pipe","id":3}"#),
        ])
        XCTAssertTrue(hidden.tokenWorks)
        XCTAssertEqual(hidden.problem, "the repository cannot be read with this token (Gitea answered 404: Not Found)")
        XCTAssertEqual(hidden.checks, .unknown("not checked"))
    }

    func testAGitHubAppIsJudgedByItsInstallationsPermissions() {
        let check = ForgeTokenCheck(repository: ForgeFixtures.repository(.github), asGitHubApp: true)
        let report = check.judge([
            .app: answer(200, #"{"id":42,"slug":"pipe-ci","permissions":{"checks":"write"}}"#),
            .installation: answer(
                200, #"{"id":77,"permissions":{"checks":"write","statuses":"read","pull_requests":"write"}}"#),
        ])
        XCTAssertTrue(report.tokenWorks)
        XCTAssertEqual(report.identity, ForgeAuthor(id: nil, login: "pipe-ci[bot]"))
        XCTAssertEqual(report.installationID, 77)
        XCTAssertEqual(report.checks, .yes)
        XCTAssertEqual(report.statuses, .no("the installation lacks the statuses: write permission"))
        XCTAssertEqual(report.comments, .yes)
        let missing = check.judge([
            .app: answer(200, #"{"slug":"pipe-ci"}"#), .installation: answer(404, #"{"message":"Not Found"}"#),
        ])
        XCTAssertEqual(missing.problem, "the app is not installed on the repository (GitHub answered 404: Not Found)")
    }

    func testAGitLabTokenNeedsTheAPIScopeAndARole() {
        let check = ForgeTokenCheck(repository: ForgeFixtures.repository(.gitlab))
        let reporter = check.judge([
            .tokenScopes: answer(200, #"{"scopes":["api"],"active":true}"#),
            .repository: answer(200, #"{"permissions":{"project_access":{"access_level":20},"group_access":null}}"#),
            .identity: answer(200, #"{"username":"pipe","id":8}"#),
        ])
        XCTAssertEqual(reporter.statuses, .no("statuses need the Developer role (30); the token has 20"))
        XCTAssertEqual(reporter.comments, .yes)
        XCTAssertEqual(reporter.identity, ForgeAuthor(id: 8, login: "pipe"))
        let readAPI = check.judge([.tokenScopes: answer(200, #"{"scopes":["read_api"]}"#)])
        XCTAssertEqual(readAPI.statuses, .no("the token lacks the `api` scope"))
        let developer = check.judge([
            .tokenScopes: answer(200, #"{"scopes":["api"]}"#),
            .repository: answer(200, #"{"permissions":{"project_access":null,"group_access":{"access_level":40}}}"#),
        ])
        XCTAssertEqual(developer.statuses, .yes)
    }
}
