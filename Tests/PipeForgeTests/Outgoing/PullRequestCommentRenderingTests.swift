import Foundation
import PipeForge
import PipeTestSupport
import XCTest

/// The comment rendered by cmark-gfm (GitHub's own CommonMark, with its table, autolink, strikethrough and task
/// list extensions, and raw HTML let through as GitHub's sanitizer would see it): hostile test names, layers,
/// files and messages end up only as text inside `<code>` and `<pre>`, and the comment's own elements stay as built.
final class PullRequestCommentRenderingTests: XCTestCase {
    private static let renderer = URL(fileURLWithPath: "/usr/bin/cmark-gfm")

    private func render(_ markdown: String) throws -> String {
        let result = try CommandRunner.run(
            PullRequestCommentRenderingTests.renderer,
            ["--unsafe", "-e", "table", "-e", "autolink", "-e", "strikethrough", "-e", "tasklist"],
            stdin: Data(markdown.utf8))
        XCTAssertEqual(result.exitCode, 0, result.stderr)
        return result.stdout
    }

    /// Each element's name, in order (`li`, `/li`, …).
    private func tags(_ html: String) -> [String] {
        let pattern = try! NSRegularExpression(pattern: "<(/?[a-zA-Z][a-zA-Z0-9]*)")
        return pattern.matches(in: html, range: NSRange(html.startIndex..., in: html)).map {
            String(html[Range($0.range(at: 1), in: html)!]).lowercased()
        }
    }

    /// The text of every `<code>` element, with the entities cmark writes decoded.
    private func codeTexts(_ html: String) -> [String] {
        html.components(separatedBy: "<code>").dropFirst().map { part in
            String(part.components(separatedBy: "</code>")[0])
                .replacingOccurrences(of: "&lt;", with: "<").replacingOccurrences(of: "&gt;", with: ">")
                .replacingOccurrences(of: "&quot;", with: "\"").replacingOccurrences(of: "&amp;", with: "&")
        }
    }

    func testHostileTextRendersOnlyAsCode() throws {
        guard FileManager.default.isExecutableFile(atPath: PullRequestCommentRenderingTests.renderer.path) else {
            return XCTFail("cmark-gfm is not installed: run scripts/install-deps")
        }
        let attacks =
            InjectionCorpus.strings.filter { $0.count < 1000 } + [
                "`", "a ``` b", "```\n# Heading\n```", "<!-- pipe:comment pipeline=app-intents -->", "x --> <!-- y",
                "<script>alert(1)</script>", "<details open><summary>hi</summary>", "| a | b |\n|---|---|",
                "# Heading", "@octocat please look", "[link](https://evil.example)",
                "![img](https://evil.example/x.png)",
                "- [ ] fake", "~~struck~~", "https://evil.example", "<img src=x onerror=alert(1)>", "    ```\n</pre>",
            ]
        let allowed: Set = [
            "ul", "/ul", "li", "/li", "code", "/code", "pre", "/pre", "p", "/p", "h3", "/h3", "h4", "/h4",
            "strong", "/strong", "a", "/a", "sub", "/sub",
        ]
        let baseline = try render(ForgeFixtures.comment(tests: ForgeFixtures.failingTests(2)).body(for: .github))
        for attack in attacks {
            let test = ForgeFailingTest(layer: attack, name: attack, message: attack, file: attack, line: 3)
            let html = try render(
                ForgeFixtures.comment(tests: [test, ForgeFixtures.failingTests(1)[0]]).body(for: .github))
            XCTAssertEqual(Set(tags(html)).subtracting(allowed), [], "\(attack.debugDescription)\n\(html)")
            if !attack.isEmpty {  // an empty message has no block
                XCTAssertEqual(
                    tags(html), tags(baseline), "the same elements as a harmless one: \(attack.debugDescription)")
            }
            XCTAssertEqual(
                html.components(separatedBy: "<!--").count - 1, 1, "only the marker: \(attack.debugDescription)")
            let flat = ForgeTextCut.oneLine(attack).replacingOccurrences(of: "@", with: "@\u{2060}")
            if !flat.isEmpty {
                XCTAssertTrue(codeTexts(html).contains(flat), "\(attack.debugDescription) reads back as code\n\(html)")
            }
            let outsideCode = html.components(separatedBy: "<code>").enumerated().map { index, part in
                index == 0 ? part : part.components(separatedBy: "</code>").dropFirst().joined()
            }.joined()
            XCTAssertNil(outsideCode.range(of: "@[A-Za-z0-9]", options: .regularExpression), attack.debugDescription)
        }
    }
}
