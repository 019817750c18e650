import Foundation
import PipeCore
import PipeSpec
import PipeTestSupport
import XCTest

@testable import ShellPlugin

/// Every hostile string of the corpus, as a parameter of a `shell` layer, reaches the command as data: the line
/// `ShellPlugin` builds, run by `sh` and by `zsh` (a Mac's login shell), prints the value back unchanged and runs
/// nothing else.
final class ShellCommandInjectionTests: XCTestCase {
    private var workspace: TemporaryDirectory!
    private let loader = PipelineLoader(registry: PluginSchema.registry([ShellPlugin.self]))

    override func setUpWithError() throws {
        workspace = try TemporaryDirectory(prefix: "shell-injection")
        try? FileManager.default.removeItem(atPath: InjectionCorpus.witnessFile)
    }

    override func tearDown() {
        workspace.remove()
    }

    func testEveryCorpusValueIsPrintedBackByteExactAndRunsNothing() throws {
        for value in InjectionCorpus.strings {
            let (line, stdin) = try builtCommand(
                "printf %s ${folder}", parameters: ["folder": value], declaring: ["folder"])
            XCTAssertFalse(line.contains("pipe-injected"), "the value reached the command line: \(line)")
            for shell in ["/bin/sh", "/usr/bin/zsh"] {
                let result = try CommandRunner.shell(shell, line, stdin: stdin)
                XCTAssertEqual(result.exitCode, 0, "\(shell), value \(value.debugDescription): \(result.stderr)")
                XCTAssertEqual(result.stdoutData, Data(value.utf8), "\(shell) changed \(value.debugDescription)")
                XCTAssertFalse(
                    FileManager.default.fileExists(atPath: InjectionCorpus.witnessFile),
                    "\(shell) ran a command from \(value.debugDescription)")
            }
        }
    }

    func testAWordBuiltAroundAReferenceStaysOneWord() throws {
        let (line, stdin) = try builtCommand(
            "printf '[%s]' --flag=${a} x${b}y", parameters: ["a": "1 2", "b": ";id>/tmp/pipe-injected"],
            declaring: ["a", "b"])
        let result = try CommandRunner.shell("/bin/sh", line, stdin: stdin)
        XCTAssertEqual(result.stdout, "[--flag=1 2][x;id>/tmp/pipe-injectedy]")
        XCTAssertFalse(FileManager.default.fileExists(atPath: InjectionCorpus.witnessFile))
    }

    func testANameWithADashAndEveryParameterReachTheCommand() throws {
        let (line, stdin) = try builtCommand(
            "printf '%s|%s' ${only-testing} \"$PIPE_PARAM_other\"", parameters: ["only-testing": "a b", "other": "c"],
            declaring: ["only-testing", "other"])
        XCTAssertTrue(line.contains("PIPE_PARAM_only_testing"), line)
        let result = try CommandRunner.shell("/usr/bin/zsh", line, stdin: stdin)
        XCTAssertEqual(result.stdout, "a b|c")
    }

    func testWithoutParametersTheCommandRunsAsBefore() throws {
        let (line, stdin) = try builtCommand("printf ok", parameters: [:], declaring: [])
        XCTAssertNil(stdin)
        XCTAssertEqual(line, "cd \(workspace.url.path) && /bin/sh -c 'printf ok' 2>&1")
    }

    /// Loads a pipeline whose shell layer runs `command`, and builds its command line.
    private func builtCommand(
        _ command: String, parameters: [String: String], declaring names: [String]
    ) throws -> (line: String, stdin: Data?) {
        let declarations = names.map { "  \($0): { required: true }\n" }.joined()
        let yaml =
            (names.isEmpty ? "" : "parameters:\n" + declarations)
            + "layers:\n  check:\n    plugin: shell\n    command: '\(command.replacingOccurrences(of: "'", with: "''"))'\n"
        let pipeline = try loader.load(yaml: yaml, file: "pipelines/check.yml", parameters: parameters)
        let layer = try XCTUnwrap(pipeline.layers.first)
        return try ShellPlugin.commandLine(
            try XCTUnwrap(layer.settings["command"]?.stringValue), workspace: workspace.url.path,
            parameters: layer.shellParameters)
    }
}
