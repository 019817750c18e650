import Foundation
import PipeForge
import PipeTestSupport
import XCTest

final class ForgesDocumentationTests: XCTestCase {
    /// docs/forges.md's example file loads as it is written.
    func testTheDocumentedExampleLoads() throws {
        let text = try String(
            contentsOf: RepositoryPaths.root.appendingPathComponent("docs/forges.md"), encoding: .utf8)
        let start = try XCTUnwrap(text.range(of: "```yaml\n"))
        let end = try XCTUnwrap(text.range(of: "```", range: start.upperBound..<text.endIndex))
        let yaml = String(text[start.upperBound..<end.lowerBound])
        let config = try ForgesConfigLoader(pipelines: ["app-intents"]).load(yaml: yaml, file: "docs/forges.md")
        XCTAssertEqual(config.forges.map(\.kind), [.github, .gitea, .gitlab])
        XCTAssertEqual(config.forges.map(\.webhook.path), ["/hooks/github", "/hooks/gitea", "/hooks/gitlab"])
    }
}
