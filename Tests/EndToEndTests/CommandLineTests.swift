import Foundation
import PipeTestSupport
import XCTest

/// The built `pipe` binary's command line: help, usage errors, and pipeline validation, with exit codes.
final class CommandLineTests: XCTestCase {
    var project: TemporaryDirectory!

    override func setUpWithError() throws {
        project = try TemporaryDirectory(prefix: "pipe-cli")
        try FileManager.default.createDirectory(
            at: project.appending("pipelines"), withIntermediateDirectories: true)
    }

    override func tearDown() {
        project.remove()
    }

    private func pipe(_ arguments: [String]) throws -> CommandResult {
        try CommandRunner.run(RepositoryPaths.pipeBinary, arguments, currentDirectory: project.url)
    }

    func testHelpListsCommandsAndExitCodes() throws {
        let result = try pipe(["--help"])
        XCTAssertEqual(result.exitCode, 0)
        for text in ["run", "validate", "EXIT CODES", "130", "SIM_UDID"] {
            XCTAssertTrue(result.stdout.contains(text), "\(text) missing from:\n\(result.stdout)")
        }
        XCTAssertEqual(try pipe(["help", "run"]).stdout, try pipe(["run", "--help"]).stdout)
        XCTAssertTrue(try pipe(["--version"]).stdout.hasPrefix("pipe "))
    }

    /// The version comes from the VERSION file, and the libraries are the ones the binary runs with.
    func testVersionNamesTheVersionFileTheCommitAndTheCLibraries() throws {
        let version = try String(contentsOf: RepositoryPaths.root.appendingPathComponent("VERSION"), encoding: .utf8)
            .trimmingCharacters(in: .whitespacesAndNewlines)
        let text = try pipe(["--version"])
        XCTAssertEqual(text.exitCode, 0, text.combined)
        XCTAssertTrue(text.stdout.hasPrefix("pipe \(version) ("), text.stdout)
        for library in ["libssh2", "libgit2", "sqlite", "libcurl", "openssl", "libarchive", "libyaml", "zstd"] {
            XCTAssertTrue(text.stdout.contains("\n  \(library) "), "\(library) missing from:\n\(text.stdout)")
        }
        let json = try pipe(["--version", "--json"])
        XCTAssertEqual(json.exitCode, 0, json.combined)
        let object = try XCTUnwrap(
            try JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [String: Any], json.stdout)
        XCTAssertEqual(object["version"] as? String, version)
        XCTAssertTrue(object.keys.contains("commit"), "an unknown commit is null, not left out: \(json.stdout)")
        let libraries = try XCTUnwrap(object["libraries"] as? [[String: String]], json.stdout)
        let ssh = try XCTUnwrap(libraries.first { $0["name"] == "libssh2" }?["version"])
        XCTAssertNotNil(ssh.range(of: #"^\d+\.\d+"#, options: .regularExpression), ssh)
        let pq = try XCTUnwrap(libraries.first { $0["name"] == "libpq" }?["version"], "libpq is linked too")
        XCTAssertNotNil(pq.range(of: #"^\d+\.\d+$"#, options: .regularExpression), pq)
    }

    func testUnknownOptionSuggestsTheNearestAndExitsTwo() throws {
        let result = try pipe(["run", "app-intents", "--reff", "main"])
        XCTAssertEqual(result.exitCode, 2)
        XCTAssertTrue(result.stderr.contains("did you mean '--ref'?"), result.stderr)
    }

    func testInvalidPipelineListsEveryProblemWithPositionAndRunsNothing() throws {
        let text = """
            repository:
              workspace: examples/reader-app
            layers:
              logic:
                plugin: xcodebuild-test
                timout: 10m
              intent:
                plugin: xcodebuild-tset
                scheme: Reader
            """
        try text.write(to: project.appending("pipelines/broken.yml"), atomically: true, encoding: .utf8)
        let validate = try pipe(["validate", "broken"])
        XCTAssertEqual(validate.exitCode, 2, validate.combined)
        XCTAssertTrue(validate.stderr.contains("pipelines/broken.yml:6:5"), validate.stderr)
        XCTAssertTrue(validate.stderr.contains("did you mean 'timeout'?"), validate.stderr)
        XCTAssertTrue(validate.stderr.contains("pipelines/broken.yml:8:"), validate.stderr)
        XCTAssertTrue(
            validate.stderr.contains("scheme"), "the missing required scheme is reported:\n\(validate.stderr)")

        let run = try pipe(["run", "broken"])
        XCTAssertEqual(run.exitCode, 2, run.combined)
        XCTAssertFalse(
            FileManager.default.fileExists(atPath: project.appending("artifacts").path), "nothing may run")
    }

    func testTheRepositoryPipelinesAreValid() throws {
        let result = try CommandRunner.run(
            RepositoryPaths.pipeBinary, ["validate"], currentDirectory: RepositoryPaths.root)
        XCTAssertEqual(result.exitCode, 0, result.combined)
        XCTAssertTrue(result.stdout.contains("pipelines/app-intents.yml: valid"), result.stdout)
    }

    func testMissingHostsFileSaysHowToGetOne() throws {
        try "layers:\n  logic:\n    plugin: xcodebuild-test\n    scheme: Reader\n".write(
            to: project.appending("pipelines/p.yml"), atomically: true, encoding: .utf8)
        let result = try pipe(["run", "p"])
        XCTAssertEqual(result.exitCode, 2, result.combined)
        XCTAssertTrue(result.stderr.contains("make mac-up"), result.stderr)
    }

    func testAnEmptySIMUDIDIsRefusedBeforeAnythingRuns() throws {
        try "layers:\n  logic:\n    plugin: xcodebuild-test\n    scheme: Reader\n".write(
            to: project.appending("pipelines/p.yml"), atomically: true, encoding: .utf8)
        var environment = ProcessInfo.processInfo.environment
        environment["SIM_UDID"] = ""
        let result = try CommandRunner.run(
            RepositoryPaths.pipeBinary, ["run", "p"], environment: environment, currentDirectory: project.url)
        XCTAssertEqual(result.exitCode, 2, result.combined)
        XCTAssertTrue(result.stderr.contains("SIM_UDID is set but empty"), result.stderr)
    }
}
