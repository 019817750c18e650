import PipeForge
import PipeTestSupport
import XCTest

/// Hostile owners, repositories and project paths stay one path segment each; SHAs are hex or refused.
final class ForgePathTests: XCTestCase {
    func testEveryHostileValueIsOneSegmentThatDecodesBackToIt() throws {
        for value in InjectionCorpus.strings where !["", ".", ".."].contains(value) {
            for forge in ForgeKind.allCases {
                let repository = ForgeRepository(forge: forge, owner: value, name: value)
                let request = try ForgeAPI(repository: repository).createComment(pullRequest: 3, body: "b")
                let segments = request.path.split(separator: "/", omittingEmptySubsequences: false).dropFirst()
                XCTAssertEqual(segments.count, forge == .gitlab ? 5 : 6, "\(request.path)")
                XCTAssertFalse(request.path.contains("?") || request.path.contains("#") || request.path.contains(" "))
                XCTAssertTrue(request.path.unicodeScalars.allSatisfy { $0.isASCII && $0.value > 0x20 })
                let decoded = segments.dropFirst().first.flatMap { String($0).removingPercentEncoding }
                XCTAssertEqual(decoded, forge == .gitlab ? value + "/" + value : value)
            }
        }
    }

    func testGitLabProjectPathsAreOneEncodedSegment() throws {
        let api = ForgeAPI(repository: ForgeRepository(forge: .gitlab, owner: "ios/apps", name: "reader.app"))
        XCTAssertEqual(
            try api.createStatus(ForgeFixtures.report(.running), sha: ForgeFixtures.sha).path,
            "/projects/ios%2Fapps%2Freader.app/statuses/\(ForgeFixtures.sha)")
        let byID = ForgeAPI(repository: ForgeRepository(forge: .gitlab, owner: "x", name: "y", gitlabProjectID: 17))
        XCTAssertEqual(try byID.listComments(pullRequest: 4).path, "/projects/17/merge_requests/4/notes")
    }

    func testEmptyAndDotSegmentsAreRefusedWithTheirName() {
        for value in ["", ".", ".."] {
            let api = ForgeAPI(repository: ForgeRepository(forge: .github, owner: "acme", name: value))
            XCTAssertThrowsError(try api.listComments(pullRequest: 1)) {
                XCTAssertEqual($0 as? ForgeRequestError, .badPathValue(name: "repository", value: value))
                XCTAssertTrue("\($0)".contains("forges.yml"), "\($0)")
            }
        }
        let api = ForgeAPI(repository: ForgeFixtures.repository(.github))
        XCTAssertThrowsError(try api.listComments(pullRequest: 0))
        XCTAssertThrowsError(try api.editComment(id: -1, pullRequest: 1, body: ""))
        XCTAssertThrowsError(
            try ForgeAPI(repository: ForgeRepository(forge: .github, owner: InjectionCorpus.withNUL, name: "r"))
                .pullRequest(1))
    }

    func testCommitSHAsAreFullHexOnly() throws {
        XCTAssertEqual(try CommitSHA(String(repeating: "A", count: 40)).value, String(repeating: "a", count: 40))
        XCTAssertNoThrow(try CommitSHA(String(repeating: "0", count: 64)))
        for bad in ["1a2b3c4", String(repeating: "g", count: 40), String(repeating: "a", count: 39) + "/"]
            + InjectionCorpus.strings
        {
            XCTAssertThrowsError(try CommitSHA(bad)) {
                XCTAssertTrue("\($0)".contains("is not a commit id"), "\($0)")
            }
        }
    }

    func testQueryValuesAreEncoded() throws {
        let run = GitHubCheckRun(
            repository: ForgeFixtures.repository(.github),
            report: ForgeGateReport(pipeline: "a&b=c #d", gate: .merge, state: .running), sha: ForgeFixtures.sha)
        let target = try run.list(appID: 42).target
        XCTAssertTrue(target.contains("check_name=pipe%2Fa%26b%3Dc%20%23d%2Fmerge&"), target)
        XCTAssertEqual(
            try run.list(appID: 42).url(apiBase: "https://ghe.example/api/v3/"), "https://ghe.example/api/v3" + target)
    }

    func testEachForgesAuthorizationHeader() throws {
        XCTAssertEqual(try ForgeCredential.token("ghp_x", for: .github).header.0, "Authorization")
        XCTAssertEqual(try ForgeCredential.token("ghp_x", for: .github).header.1, "Bearer ghp_x")
        XCTAssertEqual(
            try ForgeCredential.token("abc\n", for: .gitea).header.1, "token abc", "a file's newline trimmed")
        XCTAssertEqual(try ForgeCredential.token("glpat-x", for: .gitlab).header.0, "PRIVATE-TOKEN")
        XCTAssertEqual(try ForgeCredential.token("glpat-x", for: .gitlab).header.1, "glpat-x")
        XCTAssertEqual(try ForgeCredential(.bearer, token: "oauth").header.1, "Bearer oauth")
        let request = try ForgeAPI(repository: ForgeFixtures.repository(.gitea)).pullRequest(1)
            .authorized(by: ForgeCredential.token("abc", for: .gitea))
        XCTAssertEqual(request.header("authorization"), "token abc")
        for bad in ["", "a b", "a\r\nX-Evil: 1", "tök", "a\u{0}"] {
            XCTAssertThrowsError(try ForgeCredential.token(bad, for: .github)) {
                XCTAssertFalse("\($0)".contains(bad.isEmpty ? "\u{1}" : bad), "the token is never in the message")
            }
        }
        XCTAssertFalse("\(try ForgeCredential.token("secret-value", for: .github))".contains("secret-value"))
    }
}
