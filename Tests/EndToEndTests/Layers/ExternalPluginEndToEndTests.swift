import Foundation
import PipeTestSupport
import XCTest

/// External plugins (`pipe-layer-<kind>` in the project's Plugins/ folder) from the built `pipe`: checked by
/// `pipe validate` against their own `--describe`, and run as layers that pass, crash or hang.
final class ExternalPluginEndToEndTests: GateTestCase {
    static let fixtures = RepositoryPaths.root.appendingPathComponent("Tests/ExternalPluginTests/Fixtures")
    static let example = RepositoryPaths.root.appendingPathComponent("Plugins/examples/pipe-layer-source-lint")

    /// A project whose pipeline has the `logic` layer and one external layer, with the plugin installed.
    private func project(kind: String, plugin: URL, layer: String) throws -> PipeProject {
        let pipeline = """
            repository:
              workspace: examples/reader-app
            simulator:
              device: iPhone 15
            layers:
              logic:
                plugin: xcodebuild-test
                scheme: Reader
                only-testing: [ReaderTests/ReadingIDTests]
            \(layer)
            """
        let project = try PipeProject(host: host, pipeline: pipeline)
        try FileManager.default.createDirectory(
            at: project.url.appendingPathComponent("Plugins"), withIntermediateDirectories: true)
        let destination = project.url.appendingPathComponent("Plugins/pipe-layer-\(kind)")
        try FileManager.default.copyItem(at: plugin, to: destination)
        XCTAssertEqual(chmod(destination.path, 0o755), 0)
        return project
    }

    /// Runs the pipeline and returns the external layer's record.
    private func runWithExternalPlugins(_ project: PipeProject, layer name: String) throws -> (
        CommandResult, [String: Any]
    ) {
        let run = try project.pipe(["run", "app-intents"])
        let record = try project.lastRecord()
        let external = try XCTUnwrap(layer(name, in: record), "no layer \(name) in the run record")
        return (run, external)
    }

    func testValidateChecksAnExternalLayerAgainstItsDescription() throws {
        let project = try project(
            kind: "source-lint", plugin: Self.example,
            layer: """
                  lint:
                    plugin: source-lint
                    pathz: [Sources]
                    max-line-length: long
                """)
        let invalid = try project.pipe(["validate", "app-intents"])
        XCTAssertEqual(invalid.exitCode, 2, invalid.combined)
        XCTAssertTrue(
            invalid.stderr.contains("pipelines/app-intents.yml:12:5: error: layers.lint.pathz"), invalid.stderr)
        XCTAssertTrue(invalid.stderr.contains("pathz"), invalid.stderr)
        XCTAssertTrue(invalid.stderr.contains("'paths'"), "the nearest setting is suggested:\n\(invalid.stderr)")
        XCTAssertTrue(invalid.stderr.contains("max-line-length"), invalid.stderr)

        try """
        repository:
          workspace: examples/reader-app
        layers:
          lint:
            plugin: source-lint
            paths: [Sources]
            max-line-length: 120
        """.write(
            to: project.url.appendingPathComponent("pipelines/app-intents.yml"), atomically: true, encoding: .utf8)
        let valid = try project.pipe(["validate", "app-intents"])
        XCTAssertEqual(valid.exitCode, 0, valid.combined)
    }

    func testAPluginThatCannotDescribeItselfIsNamedWithTheReason() throws {
        let project = try project(
            kind: "lint", plugin: Self.fixtures.appendingPathComponent("future"),
            layer: """
                  lint:
                    plugin: lint
                """)
        let result = try project.pipe(["validate", "app-intents"])
        XCTAssertEqual(result.exitCode, 2, result.combined)
        XCTAssertTrue(result.stderr.contains("external plugin 'lint' left out"), result.stderr)
        XCTAssertTrue(result.stderr.contains("--describe: the plugin speaks protocol 3"), result.stderr)
        XCTAssertTrue(result.stderr.contains("unknown plugin kind 'lint'"), result.stderr)
    }

    func testAnExternalPluginThatSucceedsIsALayerLikeAnyOther() throws {
        let project = try project(
            kind: "source-lint", plugin: Self.example,
            layer: """
                  lint:
                    plugin: source-lint
                    paths: [Sources]
                    forbid: ["fatalError("]
                """)
        let (run, lint) = try runWithExternalPlugins(project, layer: "lint")
        XCTAssertEqual(run.exitCode, 0, run.combined)
        XCTAssertEqual(lint["outcome"] as? String, "passed", "\(lint)")
        XCTAssertEqual((lint["tests"] as? [Any])?.count, 5, "every Swift file of the reader app is a test result")
        let folder = try lastRunFolder(project)
        XCTAssertTrue(
            FileManager.default.fileExists(atPath: folder.appendingPathComponent("lint/source-lint.txt").path))
        XCTAssertTrue(
            FileManager.default.fileExists(atPath: folder.appendingPathComponent("lint/plugin-stderr.log").path))
    }

    /// `retry.tests` through `pipe run`: the engine hands a protocol 2 plugin the failed test, and merges what either
    /// version ran again into the layer's tests, each once.
    func testATestRetryHandsAProtocol2PluginTheFailedTestsAndMergesEitherVersion() throws {
        for (fixture, retried) in [("retrier-v2", "LintTests/Suite/testTwo"), ("retrier-v1", nil)] {
            let project = try project(
                kind: "lint", plugin: Self.fixtures.appendingPathComponent(fixture),
                layer: """
                      lint:
                        plugin: lint
                        retry: { tests: 1, backoff: 0s }
                    """)
            let (run, lint) = try runWithExternalPlugins(project, layer: "lint")
            XCTAssertEqual(run.exitCode, 0, "\(fixture): flaky passes by default:\n\(run.combined)")
            XCTAssertEqual(lint["outcome"] as? String, "flaky", fixture)
            let attempts = try XCTUnwrap(lint["attempts"] as? [[String: Any]])
            XCTAssertEqual(attempts.map { $0["outcome"] as? String }, ["tests-failed", "passed"], fixture)
            let facts = attempts.map { $0["facts"] as? [String: String] ?? [:] }
            XCTAssertEqual(facts[1]["retried"], retried, "\(fixture): \(facts[1])")
            let tests = try XCTUnwrap(lint["tests"] as? [[String: Any]])
            XCTAssertEqual(
                tests.compactMap { $0["identifier"] as? String },
                ["Suite/testOne", "Suite/testTwo", "Suite/testThree"],
                fixture)
            XCTAssertEqual(Set(tests.compactMap { $0["status"] as? String }), ["passed"], fixture)
        }
    }

    func testAnExternalPluginThatCrashesIsAPluginErrorAndTheRunGoesOn() throws {
        let project = try project(
            kind: "lint", plugin: Self.fixtures.appendingPathComponent("crasher"),
            layer: """
                  lint:
                    plugin: lint
                """)
        let (run, lint) = try runWithExternalPlugins(project, layer: "lint")
        XCTAssertEqual(run.exitCode, 3, "a plugin failure is not the app's:\n\(run.combined)")
        XCTAssertEqual(lint["outcome"] as? String, "plugin-error")
        let evidence = (lint["evidence"] as? [String] ?? []).joined(separator: "\n")
        XCTAssertTrue(evidence.contains("crashed: killed by signal 11"), evidence)
        XCTAssertTrue(evidence.contains("bad pointer"), evidence)
        XCTAssertEqual(layer("logic", in: try project.lastRecord())?["outcome"] as? String, "passed")
        let stderr = try String(
            contentsOf: try lastRunFolder(project).appendingPathComponent("lint/plugin-stderr.log"), encoding: .utf8)
        XCTAssertEqual(stderr, "fatal: the lint engine hit a bad pointer\n")
        XCTAssertEqual(try project.pipe(["gate", "last", "--for", "merge"]).exitCode, 3)
    }

    func testAnExternalPluginThatHangsIsStoppedAtTheLayersTimeout() throws {
        let project = try project(
            kind: "lint", plugin: Self.fixtures.appendingPathComponent("hanger"),
            layer: """
                  lint:
                    plugin: lint
                    timeout: 2s
                """)
        let started = Date()
        let (run, lint) = try runWithExternalPlugins(project, layer: "lint")
        XCTAssertLessThan(Date().timeIntervalSince(started), 30, "not left to `sleep 300`")
        XCTAssertEqual(run.exitCode, 3, run.combined)
        XCTAssertEqual(lint["outcome"] as? String, "plugin-error")
        let evidence = (lint["evidence"] as? [String] ?? []).joined(separator: "\n")
        XCTAssertTrue(evidence.contains("did not finish within the layer's timeout (2 s)"), evidence)
        let pid = try String(
            contentsOf: try lastRunFolder(project).appendingPathComponent("lint/child.pid"), encoding: .utf8)
        let child = try XCTUnwrap(Int32(pid.trimmingCharacters(in: .whitespacesAndNewlines)))
        // A zombie has exited and only waits to be reaped by whoever inherited it.
        let state = (try? String(contentsOfFile: "/proc/\(child)/stat", encoding: .utf8))?
            .split(separator: ")").last?.trimmingCharacters(in: .whitespaces).first
        XCTAssertTrue(
            kill(child, 0) != 0 || state == "Z",
            "the plugin's child \(child) still runs (state \(state.map(String.init) ?? "?"))")
    }
}
