import Foundation
import PipeTestSupport
import XCTest

/// `pipe validate` checks the project's forges.yml with the same positioned errors as pipeline files.
final class ForgesValidateTests: XCTestCase {
    var project: TemporaryDirectory!

    override func setUpWithError() throws {
        project = try TemporaryDirectory(prefix: "pipe-forges")
        try FileManager.default.createDirectory(at: project.appending("pipelines"), withIntermediateDirectories: true)
        try "layers:\n  logic:\n    plugin: xcodebuild-test\n    scheme: Reader\n".write(
            to: project.appending("pipelines/app-intents.yml"), atomically: true, encoding: .utf8)
    }

    override func tearDown() {
        project.remove()
    }

    private func pipe(_ arguments: [String]) throws -> CommandResult {
        try CommandRunner.run(RepositoryPaths.pipeBinary, arguments, currentDirectory: project.url)
    }

    private func writeForges(_ text: String) throws {
        try text.write(to: project.appending("forges.yml"), atomically: true, encoding: .utf8)
    }

    func testValidateWithoutArgumentsChecksThePipelinesAndForgesYml() throws {
        try writeForges(
            """
            forges:
              github:
                kind: github
                repository: acme/reader
                token: {env: GITHUB_TOKEN}
                webhook: {secret: {env: GITHUB_WEBHOOK_SECRET}}
                pull-requests: [{pipelines: [app-intents]}]
            """)
        let result = try pipe(["validate"])
        XCTAssertEqual(result.exitCode, 0, result.combined)
        XCTAssertTrue(result.stdout.contains("pipelines/app-intents.yml: valid"), result.stdout)
        XCTAssertTrue(result.stdout.contains("forges.yml: valid (1 forges)"), result.stdout)
    }

    func testAnInvalidForgesYmlIsListedWithPositionsAndExitsTwo() throws {
        try writeForges(
            """
            forges:
              github:
                kind: github
                repository: acme/reader
                token: ghp_literal
                webhook: {secret: {env: S}}
                pull-requests: [{pipelines: [app-intent]}]
                forkz: never
            """)
        for arguments in [["validate"], ["validate", "forges.yml"]] {
            let result = try pipe(arguments)
            XCTAssertEqual(result.exitCode, 2, result.combined)
            XCTAssertTrue(result.stderr.contains("forges.yml:5:12: error: forges.github.token: the API token itself"))
            XCTAssertTrue(
                result.stderr.contains(
                    "forges.yml:7:34: error: forges.github.pull-requests[0].pipelines[0]: no pipeline 'app-intent'"),
                result.stderr)
            XCTAssertTrue(
                result.stderr.contains(
                    "forges.yml:8:5: error: forges.github.forkz: unknown key; did you mean 'forks'?"), result.stderr)
            XCTAssertFalse(result.stderr.contains("ghp_literal"), "the secret is never printed")
        }
        let pipelineOnly = try pipe(["validate", "app-intents"])
        XCTAssertEqual(pipelineOnly.exitCode, 0, "naming a pipeline checks only it:\n\(pipelineOnly.combined)")
    }
}
