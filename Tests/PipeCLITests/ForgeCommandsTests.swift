import Foundation
import PipeCore
import PipeForge
import PipeTestSupport
import XCTest

@testable import PipeCLI

/// The pure parts of `pipe forge …`: parsing, how a delivery is shown, how a pull request answer is read, and when
/// a forge counts as usable.
final class ForgeCommandsTests: XCTestCase {
    func testEveryForgeCommandParsesItsDocumentedOptions() throws {
        let lines: [([String], [String])] = [
            (["forge", "send", "--json"], ["forge", "send"]),
            (["forge", "check", "github", "gitlab", "--json"], ["forge", "check"]),
            (["forge", "deliveries", "--forge", "github", "-n", "5", "--json"], ["forge", "deliveries"]),
            (["forge", "approve", "github", "42", "--sha", String(repeating: "a", count: 40)], ["forge", "approve"]),
        ]
        for (words, expected) in lines {
            guard case .run(let path, _) = PipeCommandLine.tool.parse(words) else {
                return XCTFail("\(words) did not parse")
            }
            XCTAssertEqual(path, expected)
        }
        guard case .run(_, let approve) = PipeCommandLine.tool.parse(["forge", "approve", "github", "42"]) else {
            return XCTFail("approve did not parse")
        }
        XCTAssertEqual(approve.argument("forge"), "github")
        XCTAssertEqual(approve.argument("number"), "42")
        guard case .error(let missing) = PipeCommandLine.tool.parse(["forge", "approve", "github"]) else {
            return XCTFail("approve without a number parsed")
        }
        XCTAssertEqual(missing.exitCode, 2)
    }

    func testADeliveryIsOneLineWithTextFromPayloadsEscaped() {
        let hostile =
            InjectionCorpus.strings + [
                "\u{1b}]0;pwned\u{7}", "\u{1b}[2J\u{1b}[H", "evil\u{202e}txt.exe", "a\u{9b}31mred", "line\nfake line",
            ]
        for text in hostile {
            let delivery = ForgeDeliveriesCommand.Delivery(
                id: 1, at: Date(timeIntervalSince1970: 1_796_234_894), forge: "github",
                fields: [
                    "verdict": "accepted", "status": 202, "event": text, "delivery": text, "result": text,
                    "runs": [text],
                ])
            let line = ForgeDeliveriesCommand.line(delivery)
            let unsafe = line.unicodeScalars.filter {
                $0.value < 0x20 || (0x7F...0x9F).contains($0.value) || (0x202A...0x202E).contains($0.value)
                    || (0x2066...0x2069).contains($0.value)
            }
            XCTAssertEqual(unsafe.count, 0, "\(text.debugDescription) reached the terminal: \(line.debugDescription)")
            XCTAssertTrue(line.hasPrefix("2026-"), line)
            XCTAssertTrue(line.contains("accepted 202"), line)
        }
    }

    func testADeliveryWithoutARecognisedEntryStillShowsItsVerdict() {
        let refused = ForgeDeliveriesCommand.Delivery(
            id: 2, at: Date(timeIntervalSince1970: 0), forge: "gitlab",
            fields: ["verdict": "refused", "status": 401, "reason": "the X-Gitlab-Token header is missing"])
        XCTAssertEqual(
            ForgeDeliveriesCommand.line(refused),
            "1970-01-01T00:00:00.000Z  gitlab  refused 401: the X-Gitlab-Token header is missing")
    }

    private func forge(_ kind: ForgeKind, repository: String, comment: Bool = true) -> ForgeConfig {
        ForgeConfig(
            name: kind.rawValue, kind: kind, apiURL: URL(string: "https://forge.example/api")!,
            repository: repository, token: .environment("TOKEN"),
            webhook: WebhookEndpointConfig(path: "/hooks/\(kind.rawValue)", secret: .environment("SECRET")),
            push: [], pullRequests: [], comment: comment)
    }

    private func answer(_ json: String) -> ForgeResponse {
        ForgeResponse(status: 200, headers: [("Content-Type", "application/json")], body: Array(json.utf8))
    }

    func testApproveReadsThePullRequestOfEachForge() {
        let sha = "3f2a9c1d4e5b6a7980c1d2e3f4a5b6c7d8e9f001"
        let github = answer(
            """
            {"state": "open", "head": {"sha": "\(sha)", "ref": "patch-1", "repo": {"full_name": "forker/reader"}},
             "base": {"ref": "main", "repo": {"full_name": "acme/reader"}}}
            """)
        XCTAssertEqual(
            PullRequestApprover.read(github, forge: forge(.github, repository: "acme/reader")),
            PullRequestApprover.PullRequest(
                headSHA: sha, headRef: "patch-1", headRepository: "forker/reader", baseBranch: "main", open: true))
        func gitlab(state: String, sourceProject: Int) -> PullRequestApprover.PullRequest? {
            let json = """
                {"state": "\(state)", "sha": "\(sha)", "source_branch": "patch-1", "target_branch": "main",
                 "source_project_id": \(sourceProject), "target_project_id": 12}
                """
            return PullRequestApprover.read(answer(json), forge: forge(.gitlab, repository: "mobile/reader"))
        }
        XCTAssertEqual(
            gitlab(state: "opened", sourceProject: 77),
            PullRequestApprover.PullRequest(
                headSHA: sha, headRef: "patch-1", headRepository: "project 77", baseBranch: "main", open: true))
        XCTAssertEqual(
            gitlab(state: "merged", sourceProject: 12)?.headRepository, "mobile/reader",
            "a merge request within the project is not from a fork")
        XCTAssertEqual(gitlab(state: "merged", sourceProject: 12)?.open, false)
        XCTAssertNil(
            PullRequestApprover.read(
                answer(#"{"state": "open", "head": {"sha": "not-a-sha"}}"#),
                forge: forge(.gitea, repository: "acme/reader")))
    }

    func testAForgeIsUsableWhenWhatForgesYmlUsesCanBePosted() {
        var report = ForgeTokenReport(forge: .github)
        report.tokenWorks = true
        report.statuses = .unknown("write access")
        report.checks = .no("check runs need a GitHub App")
        report.comments = .no("the classic token lacks the `repo` scope")
        let withoutComments = ForgeCheckCommand.Result(
            forge: forge(.github, repository: "acme/reader", comment: false), asApp: false, report: report,
            secretProblem: nil)
        XCTAssertTrue(withoutComments.usable, "\(withoutComments.problems)")
        let withComments = ForgeCheckCommand.Result(
            forge: forge(.github, repository: "acme/reader"), asApp: false, report: report, secretProblem: nil)
        XCTAssertEqual(withComments.problems, ["comments: the classic token lacks the `repo` scope"])
        let noSecret = ForgeCheckCommand.Result(
            forge: forge(.github, repository: "acme/reader", comment: false), asApp: false, report: report,
            secretProblem: "webhook secret: the environment variable SECRET is not set on this machine")
        XCTAssertFalse(noSecret.usable)
        XCTAssertTrue(ForgeCheckCommand.text(noSecret).contains("webhook secret: cannot be read"))
        report.statuses = .no("the token's user cannot write to the repository (permissions.push is false)")
        XCTAssertFalse(
            ForgeCheckCommand.Result(
                forge: forge(.github, repository: "acme/reader", comment: false), asApp: false, report: report,
                secretProblem: nil
            ).usable)
    }

    func testWhatAForgeAnsweredIsShownEscapedOnItsOwnLine() {
        let hostile = "\u{1b}]0;pwned\u{7}<h1>502</h1>\nsent     github: status forged"
        let update = ForgeUpdate(
            sequence: 3,
            draft: ForgeUpdate.Draft(
                forge: "github", target: "status github acme/reader 3f2a pipe/app-intents/merge", kind: "status",
                payload: "{}", runID: "20261202-180814-2055", createdAt: Date(timeIntervalSince1970: 0)),
            state: .pending, attempts: 1, nextAttemptAt: Date(timeIntervalSince1970: 60),
            lastError: "GitHub answered 502: " + hostile)
        let line = ForgeSendCommand.waitingLine(update)
        XCTAssertEqual(
            line,
            "waiting  github: status github acme/reader 3f2a pipe/app-intents/merge (run 20261202-180814-2055) until "
                + "1970-01-01T00:01:00.000Z: GitHub answered 502: \\u{1b}]0;pwned\\u{7}<h1>502</h1>\\u{a}sent     "
                + "github: status forged")

        var report = ForgeTokenReport(forge: .gitea)
        report.problem = "the token was refused: Gitea answered 401: " + hostile
        let text = ForgeCheckCommand.text(
            ForgeCheckCommand.Result(
                forge: forge(.gitea, repository: "acme/reader"), asApp: false, report: report, secretProblem: nil))
        XCTAssertFalse(text.unicodeScalars.contains { $0.value == 0x1B || $0.value == 0x07 }, text)
        XCTAssertEqual(text.split(separator: "\n").count, 7, "one line per finding: \(text)")
    }
}
