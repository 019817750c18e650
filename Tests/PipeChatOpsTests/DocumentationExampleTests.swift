import Foundation
import PipeChatOps
import PipeSpec
import XCTest

/// The config example in docs/chatops.md is a valid `chatops:` section.
final class DocumentationExampleTests: XCTestCase {
    func testTheConfigExampleLoads() throws {
        let docs = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("docs/chatops.md")
        let text = try String(contentsOf: docs, encoding: .utf8)
        let start = try XCTUnwrap(text.range(of: "```yaml\nchatops:"))
        let end = try XCTUnwrap(text.range(of: "```", range: start.upperBound..<text.endIndex))
        let yaml = String(text[text.index(start.lowerBound, offsetBy: "```yaml\n".count)..<end.lowerBound])
        let root = try XCTUnwrap(try YAMLParser.parse(yaml, file: "docs/chatops.md"))
        let section = try XCTUnwrap(root.mapping?.first { $0.key.keyText == "chatops" }?.value)
        let config = try ChatOpsConfigLoader.load(section, file: "docs/chatops.md")
        XCTAssertEqual(config.secret, .environment("PIPE_SLACK_SIGNING_SECRET"))
        XCTAssertTrue(config.authorization.maySignoff(pipeline: "app-intents", layer: "shortcuts", user: "U012ABCDEF"))
    }
}
