import Foundation
import PipeCore
import PipeSpec
import XCTest

/// The examples in `docs/pipeline-format.md` are real files: they must load as documented.
final class DocumentationExampleTests: XCTestCase {
    private func yamlBlocks() throws -> [String] {
        let document = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("docs/pipeline-format.md")
        let text = try String(contentsOf: document, encoding: .utf8)
        return text.components(separatedBy: "```yaml\n").dropFirst().compactMap {
            $0.components(separatedBy: "```").first
        }
    }

    /// The full pipeline example: the first block with layers.
    private func pipelineExample() throws -> String {
        try XCTUnwrap(try yamlBlocks().first { $0.contains("\nlayers:") })
    }

    func testEveryPipelineBlockLoads() throws {
        let blocks = try yamlBlocks().filter { $0.contains("layers:") }
        XCTAssertGreaterThanOrEqual(blocks.count, 3)
        for block in blocks {
            let parameters = block.contains("${ref}") ? ["ref": "main"] : [:]
            XCTAssertNoThrow(
                try SpecFixtures.pipeline(block, file: "pipelines/example.yml", parameters: parameters), block)
        }
    }

    func testPipelineExampleLoads() throws {
        let pipeline = try SpecFixtures.pipeline(
            try pipelineExample(), file: "pipelines/app-intents.yml", parameters: ["ref": "main"])
        XCTAssertEqual(pipeline.name, "app-intents")
        XCTAssertEqual(pipeline.repository, RepositorySpec(ref: "main", workspacePath: "examples/reader-app"))
        XCTAssertEqual(pipeline.hostSelection.labels, ["xcode": "16.2"])
        XCTAssertEqual(pipeline.simulator.runtime, "iOS 17.5")
        XCTAssertEqual(pipeline.layers.map(\.name), ["logic", "intent", "manual"])
        XCTAssertEqual(pipeline.layers.map(\.gate), [.merge, .merge, .release])
        XCTAssertEqual(pipeline.flakyPolicy, .block)
        XCTAssertEqual(pipeline.concurrency, 2)
    }

    func testHostsExampleLoads() throws {
        let hostsExample = try XCTUnwrap(try yamlBlocks().first { $0.hasPrefix("hosts:") })
        let hosts = try HostsFileLoader.load(
            yaml: hostsExample, file: ".pipe/hosts.yml", baseDirectory: URL(fileURLWithPath: "/project/.pipe"),
            environment: ["HOME": "/home/ci"])
        XCTAssertEqual(hosts.map(\.name), ["mac-1", "mac-2"])
        XCTAssertEqual(hosts[0].identityFile, "/project/.pipe/keys/id_ed25519")
        XCTAssertEqual(hosts[1].knownHostsFile, "/home/ci/.ssh/known_hosts")
        XCTAssertEqual(hosts[1].identityPassphraseEnvironment, "MAC2_KEY_PASSPHRASE")
        XCTAssertEqual(hosts.map(\.trust), [.trusted, .trusted])
    }

    func testProjectFileExampleLoads() throws {
        let example = try XCTUnwrap(try yamlBlocks().first { $0.hasPrefix("trusted-refs:") })
        let config = try ProjectFileLoader.load(yaml: example, file: "project.yml")
        XCTAssertEqual(config.trustedRefs.map(\.text), ["main", "release/*", "refs/tags/v*"])
    }
}
