import Foundation
import PipeBasics
import PipeTestSupport
import XCTest

@testable import PipeCLI

/// Each completion script loaded in its own shell, completing through that shell's machinery and the real `pipe`
/// binary (first on PATH): bash's `complete -p` and completion function, fish's `complete -C`, and zsh's `_pipe`
/// called with `words`/`CURRENT` (its completion system needs a terminal, so `compadd` prints what it is given).
final class CompletionShellTests: XCTestCase {
    private var folder: TemporaryDirectory!

    override func setUpWithError() throws {
        folder = try TemporaryDirectory(prefix: "pipe-complete-shell")
        try FileManager.default.createDirectory(at: folder.appending("pipelines"), withIntermediateDirectories: true)
        try FileManager.default.copyItem(
            at: RepositoryPaths.root.appendingPathComponent("pipelines/haptics.yml"),
            to: folder.appending("pipelines/haptics.yml"))
        try "x\n".write(to: folder.appending("controller.yml"), atomically: true, encoding: .utf8)
        for shell in CompletionScripts.Shell.allCases {
            try CompletionScripts.script(for: shell).write(
                to: folder.appending("pipe.\(shell.rawValue)"), atomically: true, encoding: .utf8)
        }
    }

    override func tearDown() {
        folder?.remove()
    }

    /// Runs `line` in `shell` in the project folder, with the built `pipe` first on PATH; its output lines.
    private func run(_ shell: String, _ line: String) throws -> [String] {
        var environment = ProcessInfo.processInfo.environment
        environment["PATH"] = RepositoryPaths.buildProducts.path + ":" + (environment["PATH"] ?? "/usr/bin:/bin")
        environment["HOME"] = folder.url.path
        environment["XDG_CONFIG_HOME"] = folder.appending(".config").path
        let result = try CommandRunner.run(
            URL(fileURLWithPath: shell), ["-c", line], environment: environment, currentDirectory: folder.url)
        XCTAssertEqual(result.exitCode, 0, result.stderr)
        return result.stdout.split(separator: "\n").map(String.init)
    }

    private func bash(_ words: [String]) throws -> [String] {
        let quoted = words.map(ShellQuote.quote).joined(separator: " ")
        return try run(
            "/bin/bash",
            """
            source /usr/share/bash-completion/bash_completion
            source ./pipe.bash
            complete -p pipe >&2 || exit 9
            COMP_WORDS=(\(quoted)); COMP_CWORD=\(words.count - 1)
            _pipe pipe
            printf '%s\\n' "${COMPREPLY[@]}"
            """)
    }

    func testBashCompletesThroughItsCompletionFunction() throws {
        XCTAssertEqual(try bash(["pipe", "gate", "last", "--for", ""]), ["merge", "release"])
        XCTAssertEqual(try bash(["pipe", "gate", "last", "--for", "=", "r"]), ["release"])
        XCTAssertEqual(try bash(["pipe", "run", "hap"]), ["haptics"])
        XCTAssertEqual(try bash(["pipe", "run", "haptics", "--only", "dev"]), ["device"])
        XCTAssertEqual(try bash(["pipe", "controller", "--config", "contr"]), ["controller.yml"])
    }

    func testFishCompletesWithCompleteC() throws {
        func fish(_ line: String) throws -> [String] {
            try run("/usr/bin/fish", "source ./pipe.fish; complete -C \(ShellQuote.quote(line))")
                .map { String($0.prefix { $0 != "\t" }) }
        }
        XCTAssertEqual(try fish("pipe gate last --for "), ["merge", "release"])
        XCTAssertEqual(try fish("pipe completions "), ["bash", "fish", "zsh"])
        XCTAssertEqual(try fish("pipe run haptics --only t"), ["trigger-timing"])
        XCTAssertTrue(try fish("pipe runs ").contains("list"))
        XCTAssertTrue(try fish("pipe controller --config contr").contains("controller.yml"))
    }

    func testZshCompletionFunctionHandsItsAnswersToCompadd() throws {
        func zsh(_ words: [String]) throws -> [String] {
            let quoted = words.map(ShellQuote.quote).joined(separator: " ")
            return try run(
                "/usr/bin/zsh",
                """
                compadd() { while [[ $1 != -- ]]; do shift; done; shift; print -rl -- "$@"; }
                _files() { print -r -- FILES; }
                source ./pipe.zsh
                words=(\(quoted)); CURRENT=\(words.count)
                _pipe
                """)
        }
        XCTAssertEqual(try zsh(["pipe", "gate", "last", "--for", ""]), ["merge", "release"])
        XCTAssertEqual(try zsh(["pipe", "run", "haptics", "--only", "e"]), ["event-spec"])
        XCTAssertEqual(try zsh(["pipe", "controller", "--config", ""]), ["FILES"])
    }
}
