import Foundation
import PipeTestSupport
import XCTest

/// Secrets a layer needs reach the host over the channel's stdin, never on a command line, and are masked in every
/// log, event, record and report Pipe writes.
final class SecretTests: EmulatedHostTestCase {
    private let secret = "s3cr3t-Token-9f8e7d6c"
    private let pipeline = """
        repository:
          workspace: examples/reader-app
        simulator:
          device: iPhone 15
        secrets:
          API_TOKEN:
            env: PIPE_E2E_API_TOKEN
        layers:
          logic:
            plugin: xcodebuild-test
            scheme: Reader
            only-testing: [ReaderTests/ReadingIDTests]
            secrets: [API_TOKEN]
        """

    func testASecretReachesTheTestsAndNeverShowsInAnyArtifact() throws {
        let project = try makeProject(pipeline: pipeline)
        // A test that prints the value it was given: the way a secret leaks into logs and reports.
        try editCannedTests(in: project, message: "a test that prints its token") { tests in
            tests[0]["status"] = "failed"
            tests[0]["message"] = "unexpected token {{env:API_TOKEN}} from the environment"
        }
        let result = try project.pipe(["run", "app-intents"], environment: ["PIPE_E2E_API_TOKEN": secret])
        XCTAssertEqual(result.exitCode, 1, result.combined)
        XCTAssertFalse(result.combined.contains(secret), "the secret was printed:\n\(result.combined)")
        XCTAssertTrue(
            result.stdout.contains("unexpected token [secret API_TOKEN]"), "delivered and masked:\n\(result.stdout)")

        let runFolder = try XCTUnwrap(project.runFolders().last)
        var checked = 0
        let files = FileManager.default.enumerator(at: runFolder, includingPropertiesForKeys: nil)
        while let url = files?.nextObject() as? URL {
            // The result bundle is Xcode's own store of what the tests did; Pipe keeps it as it is.
            if url.path.contains(".xcresult") { continue }
            guard let data = try? Data(contentsOf: url), !data.isEmpty else { continue }
            checked += 1
            XCTAssertNil(
                data.range(of: Data(secret.utf8)), "\(url.lastPathComponent) holds the secret")
        }
        XCTAssertGreaterThanOrEqual(checked, 4, "summary.json, exit-code, xcodebuild.log and xcresult-summary.json")
        for name in ["pipe.db", "pipe.db-wal"] {
            if let data = try? Data(contentsOf: project.url.appendingPathComponent(".pipe/\(name)")) {
                XCTAssertNil(data.range(of: Data(secret.utf8)), "the run store (\(name)) holds the secret")
            }
        }
        let logs = try project.pipe(["runs", "logs", "last"])
        XCTAssertTrue(logs.stdout.contains("[secret API_TOKEN]"), logs.combined)
        XCTAssertFalse(logs.combined.contains(secret))
    }

    func testAMissingSecretStopsTheRunBeforeAnythingRuns() throws {
        let project = try makeProject(pipeline: pipeline)
        let result = try project.pipe(["run", "app-intents"])
        XCTAssertEqual(result.exitCode, 2, result.combined)
        XCTAssertTrue(
            result.stderr.contains("API_TOKEN: the environment variable PIPE_E2E_API_TOKEN is not set"), result.stderr)
        XCTAssertTrue(project.runFolders().isEmpty, "nothing ran")
    }
}
