import PipeCore
import PipeForge
import PipeTestSupport
import XCTest

/// The one comment: what it holds, hostile test names and messages that stay inside it, its size, and finding it.
final class PullRequestCommentTests: XCTestCase {
    func testTheCommentHoldsTheVerdictsTestsChecklistAndRun() {
        let checklist = ForgeChecklist(
            layer: "shortcuts", standing: .awaitingSignoff, items: ["The action appears in Shortcuts"],
            requiredFields: ["os_version", "app_build"])
        let body = ForgeFixtures.comment(checklists: [checklist]).body(for: .github)
        let lines = body.split(separator: "\n").map(String.init)
        XCTAssertEqual(lines.first, "<!-- pipe:comment pipeline=app-intents -->")
        XCTAssertTrue(lines.contains("- **merge**: failed · 2 of 19 tests failed in intent"), body)
        XCTAssertTrue(body.contains("- **release**: awaiting sign-off · awaiting sign\\-off\\: shortcuts"), body)
        XCTAssertTrue(body.contains("#### Failing tests (2)"))
        XCTAssertTrue(
            body.contains("- `ReaderTests.testCase0()` in `intent` at `Tests/ReaderTests/ReaderTests.swift:10`"))
        XCTAssertTrue(body.contains("XCTAssertEqual failed"))
        XCTAssertTrue(body.contains("- [ ] `shortcuts`: awaiting sign-off"))
        XCTAssertTrue(
            body.contains(
                "pipe signoff 20261202-170501-7f3a shortcuts --result pass|fail --field 'os_version=…' --field 'app_build=…'"
            ),
            body)
        XCTAssertTrue(body.contains("Run `20261202-170501-7f3a` at `1a2b3c4`"))
        XCTAssertTrue(body.contains("[details](<https://pipe.example/runs/20261202-170501-7f3a>)"))
        let signed = ForgeChecklist(layer: "shortcuts", standing: .signedOff, signedBy: "qa@acme.example")
        let after = ForgeFixtures.comment(tests: [], checklists: [signed]).body(for: .github)
        XCTAssertTrue(after.contains("- [x] `shortcuts`: signed off by `qa@\u{2060}acme.example`"), after)
        XCTAssertFalse(after.contains("pipe signoff"), "no command once signed")
        XCTAssertFalse(after.contains("Failing tests"))
    }

    /// Each hostile string as a test name, a layer, a file and a message reads back as exactly that text from
    /// its code span or block, and the comment's own structure is unchanged around it.
    func testHostileTestNamesAndMessagesCannotBreakOutOfTheComment() {
        let attacks =
            InjectionCorpus.strings + [
                "`", "``", "a ``` b", "```\n# Heading\n```", "<!-- pipe:comment pipeline=app-intents -->",
                "x --> <!-- y", "<script>alert(1)</script>", "<details open><summary>hi</summary>", "| a | b |",
                "# Heading", "\n## Heading\n", "@octocat please look", "@acme/ios-team", "[link](https://evil.example)",
                "![img](https://evil.example/x.png)", "- [ ] fake checklist", "/merge", "\n/approve\n", "&#64;octocat",
                "    indented\n   ```\nbreak", "\u{1B}[2J\u{7}", "a\r\n```\r\nb",
            ]
        for attack in attacks {
            let test = ForgeFailingTest(layer: attack, name: attack, message: attack, file: attack, line: 3)
            let comment = ForgeFixtures.comment(tests: [test, ForgeFixtures.failingTests(1)[0]])
            let body = comment.body(for: .github)
            let (blocks, outside) = MarkdownStructure.fencedBlocks(body)
            XCTAssertFalse(blocks.contains { $0.hasPrefix("UNCLOSED") }, "\(attack.debugDescription)\n\(body)")
            // Our own lines, in order; the hostile entry is one list item.
            let headings = outside.filter { $0.hasPrefix("#") }
            XCTAssertEqual(headings, ["### Pipe: `app-intents`", "#### Failing tests (2)"], attack.debugDescription)
            XCTAssertEqual(outside.first, "<!-- pipe:comment pipeline=app-intents -->")
            let markup = outside.map { MarkdownStructure.codeSpans($0).outside }.filter { !$0.isEmpty }
            XCTAssertEqual(markup.filter { $0.contains("<!--") }.count, 1, "\(attack.debugDescription): \(markup)")
            XCTAssertEqual(
                markup.filter { $0.contains("<") && !$0.hasPrefix("<sub>") && !$0.contains("[details](<") }.count, 1,
                "no HTML outside code: \(attack.debugDescription)")
            XCTAssertEqual(markup.filter { $0.contains("|") }, [], attack.debugDescription)
            let entries = outside.filter { $0.hasPrefix("- `") }
            XCTAssertEqual(entries.count, 2, "\(attack.debugDescription)\n\(body)")
            XCTAssertTrue(outside.last { !$0.isEmpty }?.hasPrefix("<sub>Pipe edits this comment") ?? false)
            guard let entry = entries.first else { continue }
            let (spans, rest) = MarkdownStructure.codeSpans(entry)
            let cut = ForgeTextCut.cut(ForgeTextCut.oneLine(attack), toScalars: 300)
            let flat = cut.isEmpty ? "  " : cut.replacingOccurrences(of: "@", with: "@\u{2060}")
            XCTAssertEqual(spans.count, 3, "\(attack.debugDescription): \(entry)")
            XCTAssertEqual(spans.first, flat, attack.debugDescription)
            XCTAssertEqual(spans.dropFirst().first, flat, attack.debugDescription)
            XCTAssertEqual(rest, "-  in  at ", "nothing but our words outside the spans: \(entry)")
            // The message's block holds the message (line breaks kept, controls made visible, `@` joined).
            let message = blocks.first ?? ""
            XCTAssertFalse(message.contains("\u{1B}"))
            XCTAssertFalse(body.split(separator: "\n").contains { $0.hasPrefix("/") }, "no line starts a quick action")
            for character in [Character("<"), "|", "#", "`"] where attack.contains(character) && attack.count < 2000 {
                XCTAssertTrue(message.contains(character), "the text is kept, as text: \(attack.debugDescription)")
            }
            XCTAssertFalse(
                body.unicodeScalars.indices.contains { index in
                    body.unicodeScalars[index] == "@"
                        && body.unicodeScalars.index(after: index) < body.unicodeScalars.endIndex
                        && body.unicodeScalars[body.unicodeScalars.index(after: index)] != "\u{2060}"
                }, "every @ is joined, so none mentions anyone: \(attack.debugDescription)")
        }
    }

    func testAHostileReasonInTheVerdictIsEscapedPlainText() {
        var comment = ForgeFixtures.comment(tests: [])
        comment.gates = [ForgeFixtures.report(.couldNotJudge(.hostConfig, reason: "scheme <b>x</b> | `y` # @z"))]
        let line = comment.body(for: .gitea).split(separator: "\n").first { $0.hasPrefix("- **merge**") }
        XCTAssertEqual(
            line.map(String.init),
            "- **merge**: could not judge · host\\-config\\: scheme \\<b\\>x\\<\\/b\\> \\| \\`y\\` \\# \\@\u{2060}z")
    }

    func testTheBodyStaysWithinEachForgesLimitAndSaysWhatWasLeftOut() {
        let tests = ForgeFixtures.failingTests(5000, message: String(repeating: "m", count: 3000))
        for forge in ForgeKind.allCases {
            let body = ForgeFixtures.comment(tests: tests).body(for: forge)
            XCTAssertLessThanOrEqual(body.unicodeScalars.count, ForgeLimits.of(forge).commentBody)
            XCTAssertGreaterThan(body.unicodeScalars.count, ForgeLimits.of(forge).commentBody - 3000)
            XCTAssertTrue(body.contains("#### Failing tests (5000)"))
            let shown = body.components(separatedBy: "\n- `ReaderTests.").count - 1
            XCTAssertTrue(
                body.contains(
                    "- … and \(5000 - shown) more tests not shown here: `pipe runs show 20261202-170501-7f3a`"),
                "\(forge): \(shown) shown")
            XCTAssertTrue(body.hasSuffix("last run `20261202-170501-7f3a`.</sub>\n"), "the footer survives the cut")
            XCTAssertEqual(MarkdownStructure.fencedBlocks(body).blocks.filter { $0.hasPrefix("UNCLOSED") }, [])
        }
        let gitlab = ForgeFixtures.comment(tests: tests).body(for: .gitlab)
        XCTAssertGreaterThan(gitlab.count, ForgeFixtures.comment(tests: tests).body(for: .github).count)
        // One long message is cut on its own, so it cannot crowd out the rest.
        let long = ForgeFixtures.failingTests(3, message: String(repeating: "line\n", count: 10_000))
        let body = ForgeFixtures.comment(tests: long).body(for: .github)
        XCTAssertFalse(body.contains("more tests not shown"))
        XCTAssertLessThan(body.count, 10_000)
        XCTAssertTrue(body.contains("  line\n  …\n  ```"), "a message past 30 lines says it was cut")
        // A tiny limit still keeps the marker, the verdicts and the run.
        let tiny = ForgeFixtures.comment(tests: long).body(limit: 200)
        XCTAssertEqual(
            tiny,
            "<!-- pipe:comment pipeline=app-intents -->\nmerge: failed, release: awaiting sign-off. "
                + "Run 20261202-170501-7f3a (`pipe runs show 20261202-170501-7f3a`).\n")
    }

    func testTheMarkerCannotBeEndedByAPipelineName() {
        XCTAssertEqual(
            PullRequestComment.marker(pipeline: "a --> b"), "<!-- pipe:comment pipeline=a%20--%3E%20b -->")
    }

    func testFindingItAgainNeedsBothTheMarkerAndPipesAuthor() {
        let pipe = ForgeAuthor(id: 41, login: "pipe-bot")
        let marker = PullRequestComment.marker(pipeline: "app-intents")
        let comments = [
            ForgeComment(id: 1, body: marker + "\nforged", author: ForgeAuthor(id: 7, login: "mallory")),
            ForgeComment(id: 2, body: "quoting\n" + marker, author: pipe),
            ForgeComment(id: 3, body: PullRequestComment.marker(pipeline: "other") + "\n", author: pipe),
            ForgeComment(id: 4, body: marker + "\r\nours", author: ForgeAuthor(id: 41, login: "renamed")),
            ForgeComment(id: 5, body: marker + "\nlater duplicate", author: pipe),
        ]
        XCTAssertEqual(PullRequestCommentSearch.find(pipeline: "app-intents", in: comments, author: pipe)?.id, 4)
        XCTAssertNil(
            PullRequestCommentSearch.find(pipeline: "app-intents", in: Array(comments.prefix(3)), author: pipe))
        // Without ids (a GitHub App's bot login), by login, case-insensitively.
        let bot = ForgeAuthor(id: nil, login: "pipe-ci[bot]")
        let byBot = [ForgeComment(id: 9, body: marker, author: ForgeAuthor(id: 99, login: "Pipe-CI[bot]"))]
        XCTAssertEqual(PullRequestCommentSearch.find(pipeline: "app-intents", in: byBot, author: bot)?.id, 9)
    }

    func testCommentsAreReadFromEachForgesListing() {
        let github = ForgeResponse(
            status: 200,
            headers: [
                (
                    "Link",
                    #"<https://api.github.com/repositories/1/issues/3/comments?per_page=100&page=2>; rel="next", <https://api.github.com/x?page=5>; rel="last""#
                )
            ],
            body: Array(#"[{"id":11,"body":"b","user":{"login":"pipe-bot","id":41}},{"body":"no id"}]"#.utf8))
        XCTAssertEqual(
            ForgeAnswers.comments(github, forge: .github),
            [ForgeComment(id: 11, body: "b", author: ForgeAuthor(id: 41, login: "pipe-bot"))])
        XCTAssertEqual(ForgeAnswers.nextPage(github), 2)
        let gitlab = ForgeResponse(
            status: 200, headers: [("X-Next-Page", "3")],
            body: Array(#"[{"id":5,"body":"n","author":{"username":"pipe","id":8}}]"#.utf8))
        XCTAssertEqual(
            ForgeAnswers.comments(gitlab, forge: .gitlab),
            [ForgeComment(id: 5, body: "n", author: ForgeAuthor(id: 8, login: "pipe"))])
        XCTAssertEqual(ForgeAnswers.nextPage(gitlab), 3)
        XCTAssertNil(ForgeAnswers.nextPage(ForgeResponse(status: 200, headers: [("X-Next-Page", "")])))
        XCTAssertEqual(
            ForgeAnswers.createdID(ForgeResponse(status: 201, body: Array(#"{"id":123456789012}"#.utf8))),
            123_456_789_012)
    }

    func testThePullRequestHeadIsReadForEachForge() {
        let sha = ForgeFixtures.newerSHA.value
        let github = ForgeResponse(status: 200, body: Array(#"{"number":3,"head":{"sha":"\#(sha)","ref":"x"}}"#.utf8))
        XCTAssertEqual(ForgeAnswers.pullRequestHead(github, forge: .github), ForgeFixtures.newerSHA)
        XCTAssertEqual(ForgeAnswers.pullRequestHead(github, forge: .gitea), ForgeFixtures.newerSHA)
        let gitlab = ForgeResponse(status: 200, body: Array(#"{"iid":3,"sha":"\#(sha)"}"#.utf8))
        XCTAssertEqual(ForgeAnswers.pullRequestHead(gitlab, forge: .gitlab), ForgeFixtures.newerSHA)
        let hostile = ForgeResponse(status: 200, body: Array(#"{"head":{"sha":"../../x"}}"#.utf8))
        XCTAssertNil(ForgeAnswers.pullRequestHead(hostile, forge: .github))
    }
}
