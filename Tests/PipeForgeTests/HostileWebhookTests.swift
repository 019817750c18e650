import Foundation
import PipeForge
import PipeTestSupport
import XCTest

/// Payloads are hostile even when signed: anyone who can open a pull request writes its title and branch name.
final class HostileWebhookTests: XCTestCase {
    let pullRequest = "github/webhooks/pull_request.opened.octokit.json"

    func editedPullRequest(_ edit: @escaping (inout [String: Any]) -> Void) throws -> [UInt8] {
        try WebhookDeliveries.edited(pullRequest) { object in
            var request = object["pull_request"] as? [String: Any] ?? [:]
            edit(&request)
            object["pull_request"] = request
        }
    }

    func read(_ body: [UInt8]) -> Result<PullRequestEvent, WebhookRefusal> {
        do {
            guard
                case .pullRequest(let event) = try WebhookDeliveries.read(.github, event: "pull_request", body: body)
                    .event
            else { return .failure(WebhookRefusal(.malformed, "not a pull request")) }
            return .success(event)
        } catch {
            return .failure(error)
        }
    }

    func testHostileTitlesAreKeptAsDataOrRefusedForTheirLength() throws {
        for title in InjectionCorpus.strings + [InjectionCorpus.withNUL] {
            switch read(try editedPullRequest { $0["title"] = title }) {
            case .success(let event):
                XCTAssertEqual(event.title, title, "a title is data, kept exactly")
            case .failure(let refusal):
                XCTAssertGreaterThan(title.unicodeScalars.count, WebhookLimits.titleCharacters, refusal.message)
                XCTAssertEqual(refusal.message, "pull_request.title is 100000 characters, more than 1024")
            }
        }
        XCTAssertFalse(FileManager.default.fileExists(atPath: InjectionCorpus.witnessFile))
    }

    func testHostileBranchNamesAreKeptExactlyOrRefusedWithTheRuleTheyBreak() throws {
        var refused: [String: String] = [:]
        for name in InjectionCorpus.strings + [InjectionCorpus.withNUL] {
            let body = try editedPullRequest { request in
                var head = request["head"] as? [String: Any] ?? [:]
                head["ref"] = name
                request["head"] = head
            }
            switch read(body) {
            case .success(let event):
                XCTAssertEqual(event.headRef, name)
                XCTAssertNil(GitRefName.problem(withBranch: name), "only names git accepts are kept: \(name)")
            case .failure(let refusal):
                XCTAssertTrue(refusal.message.hasPrefix("pull_request.head.ref is not a valid branch name: it "))
                refused[name] = String(
                    refusal.message.dropFirst("pull_request.head.ref is not a valid branch name: it ".count))
            }
        }
        XCTAssertEqual(refused["../../../../etc/passwd"], "holds '..'")
        XCTAssertEqual(refused[".."], "holds '..'")
        XCTAssertEqual(refused["-rf"], "starts with '-'")
        XCTAssertEqual(refused["--option=value"], "starts with '-'")
        XCTAssertEqual(refused["a\nid>/tmp/pipe-injected"], "holds a control character")
        XCTAssertEqual(refused["\u{1B}[2J\u{1B}[H"], "holds a control character")
        XCTAssertEqual(refused[InjectionCorpus.withNUL], "holds a control character")
        XCTAssertEqual(refused[";id>/tmp/pipe-injected"], nil, "valid for git: kept as data, quoted where it is used")
        XCTAssertEqual(refused["/etc/passwd"], "has a leading, trailing or doubled '/'")
        XCTAssertEqual(refused["a && id>/tmp/pipe-injected"], "holds 'a space'")
        XCTAssertEqual(refused["*"], "holds '*'")
        XCTAssertEqual(refused["~root"], "holds '~'")
        XCTAssertEqual(refused[""], "is empty")
        XCTAssertEqual(refused["."], "ends with '.'")
        XCTAssertEqual(refused[String(repeating: "x", count: 100_000)], "is 100000 bytes, more than 1024")
        XCTAssertFalse(FileManager.default.fileExists(atPath: InjectionCorpus.witnessFile))
    }

    func testGitRefRules() {
        XCTAssertNil(GitRefName.problem(withFullRef: "refs/heads/feature/x"))
        XCTAssertNil(GitRefName.problem(withBranch: "日本語"))
        XCTAssertEqual(GitRefName.problem(withFullRef: "heads/main"), "does not start with refs/")
        XCTAssertEqual(GitRefName.problem(withFullRef: "refs/heads/a.lock"), "has a part ending with '.lock'")
        XCTAssertEqual(GitRefName.problem(withFullRef: "refs/heads/.hidden"), "has a part starting with '.'")
        XCTAssertEqual(GitRefName.problem(withFullRef: "refs/heads/a@{1}"), "holds '@{'")
        XCTAssertEqual(GitRefName.problem(withFullRef: "refs/heads/a:b"), "holds ':'")
        XCTAssertEqual(GitRefName.problem(withBranch: "@"), "is '@'")
        XCTAssertEqual(GitRefName.problem(withBranch: "HEAD"), "is HEAD")
        XCTAssertEqual(GitRefName.problem(withBranch: "a\\b"), "holds '\\'")
    }

    func testCommitIdsMustBeHexOfTheRightLength() throws {
        for (sha, expected) in [
            ("ec26c3e5", "is not a commit id"), ("zz26c3e57ca3a959ca5aad62de7213c562f8c821", "is not a commit id"),
            ("$(id)", "is not a commit id"), (String(repeating: "a", count: 64), nil),
            ("EC26C3E57CA3A959CA5AAD62DE7213C562F8C821", nil),
        ] {
            let body = try editedPullRequest { request in
                var head = request["head"] as? [String: Any] ?? [:]
                head["sha"] = sha
                request["head"] = head
            }
            switch read(body) {
            case .success(let event):
                XCTAssertNil(expected, sha)
                XCTAssertEqual(event.headSHA, sha.lowercased())
            case .failure(let refusal):
                XCTAssertEqual(refusal.message, "pull_request.head.sha \(expected ?? "-") (40 or 64 hex digits)")
            }
        }
    }

    func testAPushToAnInvalidRefIsRefused() throws {
        let body = try WebhookDeliveries.edited("github/webhooks/push.normal.go-scm.json") {
            $0["ref"] = "refs/heads/a..b"
        }
        XCTAssertThrowsError(try WebhookDeliveries.read(.github, event: "push", body: body)) { error in
            XCTAssertEqual((error as? WebhookRefusal)?.message, "ref is not a valid git ref: it holds '..'")
        }
    }

    func testDeepNestingAndMissingOrMistypedFieldsAreRefusedByName() throws {
        let deep = Array(String(repeating: "[", count: 100_000).utf8)
        XCTAssertThrowsError(try WebhookDeliveries.read(.github, event: "push", body: deep)) { error in
            XCTAssertEqual((error as? WebhookRefusal)?.message, "the payload nests deeper than 64 levels")
        }
        let nested = try WebhookDeliveries.edited(pullRequest) { object in
            var value: Any = "x"
            for _ in 0..<70 { value = ["a": value] }
            object["extra"] = value
        }
        XCTAssertThrowsError(try WebhookDeliveries.read(.github, event: "pull_request", body: nested))
        let quotedBrackets = try WebhookDeliveries.edited(pullRequest) {
            $0["note"] = String(repeating: "[{", count: 500)
        }
        XCTAssertNoThrow(try WebhookDeliveries.read(.github, event: "pull_request", body: quotedBrackets), "in strings")

        let missing = try editedPullRequest { $0["head"] = nil }
        if case .failure(let refusal) = read(missing) {
            XCTAssertEqual(refusal.message, "the pull_request payload has no pull_request.head")
        } else {
            XCTFail("a pull request without a head is refused")
        }
        let mistyped = try editedPullRequest { $0["number"] = "2" }
        if case .failure(let refusal) = read(mistyped) {
            XCTAssertTrue(
                refusal.message.hasPrefix("the pull_request payload has the wrong type at pull_request.number"))
        } else {
            XCTFail("a number given as text is refused")
        }
        XCTAssertThrowsError(try WebhookDeliveries.read(.github, event: "push", body: Array("not json".utf8)))
    }

    func testTooManyLabelsLongNamesAndBadHeadersAreRefused() throws {
        let labels = try editedPullRequest { request in
            request["labels"] = (0..<101).map { ["name": "l\($0)"] }
        }
        if case .failure(let refusal) = read(labels) {
            XCTAssertEqual(refusal.message, "pull_request.labels holds 101 labels, more than 100")
        } else {
            XCTFail("101 labels are refused")
        }
        let login = try editedPullRequest { request in request["user"] = ["login": "a\u{1B}]0;x\u{07}"] }
        if case .failure(let refusal) = read(login) {
            XCTAssertEqual(refusal.message, "pull_request.user.login holds a control character")
        } else {
            XCTFail("a login with control characters is refused")
        }
        let body = try ForgeContractFiles.bytes(pullRequest)
        for (headers, expected) in [
            ([WebhookRequest.Header("X-GitHub-Event", "push")], "X-GitHub-Event header is sent 2 times"),
            ([WebhookRequest.Header("X-GitHub-Delivery", "x")], "X-GitHub-Delivery header is sent 2 times"),
        ] {
            XCTAssertThrowsError(
                try WebhookDeliveries.read(.github, event: "pull_request", body: body, extra: headers)
            ) { error in
                XCTAssertTrue((error as? WebhookRefusal)?.message.contains(expected) == true, "\(error)")
            }
        }
        var request = WebhookDeliveries.request(.github, event: "pull_request", body: body)
        request.headers.removeAll { $0.name == "X-GitHub-Event" }
        let verified = try WebhookVerifier(kind: .github, secret: WebhookDeliveries.secret).verify(request)
        XCTAssertThrowsError(try WebhookReader.read(verified)) { error in
            XCTAssertEqual(
                (error as? WebhookRefusal)?.message, "no X-GitHub-Event header: not a github delivery")
        }
        request = WebhookDeliveries.request(.github, event: "pull_request", body: body)
        request.headers = request.headers.map {
            $0.name == "X-GitHub-Delivery" ? .init($0.name, "id with\nnewline") : $0
        }
        XCTAssertThrowsError(
            try WebhookReader.read(
                try WebhookVerifier(kind: .github, secret: WebhookDeliveries.secret).verify(request)))
    }
}
