import Foundation
import PipeCLI
import XCTest

/// Help screens compared with golden files in `Fixtures/`.
///
/// After an intended change to help output, re-record them with
/// `PIPE_RECORD_SNAPSHOTS=1 swift test --filter PipeCLITests.HelpTests`, review `git diff Tests/PipeCLITests/Fixtures`,
/// and run again without the variable (recording fails every test it touches, so it cannot be left on by accident).
final class HelpTests: XCTestCase {
    private let tool = SampleCommands.tool

    func testRootHelp() {
        assertMatchesGolden(help(["--help"]), "root-help")
    }

    func testRunHelp() {
        assertMatchesGolden(help(["run", "--help"]), "run-help")
    }

    func testGroupHelp() {
        assertMatchesGolden(help(["runs", "--help"]), "runs-help")
    }

    func testNestedCommandHelpListsGlobalOptions() {
        assertMatchesGolden(help(["hosts", "trust", "--help"]), "hosts-trust-help")
    }

    func testVariadicCommandHelp() {
        assertMatchesGolden(help(["validate", "-h"]), "validate-help")
    }

    func testEveryWayOfAskingGivesTheSameText() {
        let root = help(["--help"])
        for words in [["-h"], ["help"], [], ["-v"], ["help", "--json"]] {
            XCTAssertEqual(help(words), root, "\(words)")
        }
        let run = help(["run", "--help"])
        for words in [["help", "run"], ["run", "-h"], ["run", "p.yml", "--json", "--help"], ["-v", "run", "-h"]] {
            XCTAssertEqual(help(words), run, "\(words)")
        }
        // A command with subcommands, given none, shows its help.
        XCTAssertEqual(help(["runs"]), help(["help", "runs"]))
        XCTAssertEqual(help(["help", "hosts", "trust"]), help(["hosts", "trust", "--help"]))
        XCTAssertEqual(tool.helpText(for: ["hosts", "trust"]), help(["hosts", "trust", "--help"]))
        XCTAssertNil(tool.helpText(for: ["hosts", "nope"]))
        // `--help` shows the help of the command named before it.
        XCTAssertEqual(help(["--help", "run"]), root)
    }

    func testEveryHelpLineFitsAndHasNoTrailingSpace() {
        var paths: [[String]] = []
        func collect(_ command: CommandSpec, _ path: [String]) {
            paths.append(path)
            for subcommand in command.subcommands { collect(subcommand, path + [subcommand.name]) }
        }
        collect(SampleCommands.root, [])
        XCTAssertEqual(paths.count, 10)
        for path in paths {
            let text = tool.helpText(for: path) ?? ""
            XCTAssertFalse(text.isEmpty, "\(path)")
            for line in text.split(separator: "\n", omittingEmptySubsequences: false) {
                XCTAssertLessThanOrEqual(line.count, 100, "\(path): \(line)")
                XCTAssertFalse(line.hasSuffix(" "), "\(path): trailing space in '\(line)'")
            }
            XCTAssertFalse(text.contains("\n\n\n"), "\(path): two blank lines in a row")
        }
    }

    private func help(_ words: [String], file: StaticString = #filePath, line: UInt = #line) -> String {
        let outcome = tool.parse(words)
        guard case .help(let text) = outcome else {
            XCTFail("expected help for \(words), got \(outcome)", file: file, line: line)
            return ""
        }
        return text
    }

    private func assertMatchesGolden(
        _ actual: String, _ name: String, file: StaticString = #filePath, line: UInt = #line
    ) {
        let url = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
            .appendingPathComponent("Fixtures/\(name).txt")
        // Files end with a newline like any text file; help text itself has none.
        let recorded = actual + "\n"
        if ProcessInfo.processInfo.environment["PIPE_RECORD_SNAPSHOTS"] == "1" {
            XCTAssertNoThrow(try recorded.write(to: url, atomically: true, encoding: .utf8), file: file, line: line)
            return XCTFail("recorded \(url.path); run again without PIPE_RECORD_SNAPSHOTS", file: file, line: line)
        }
        guard let expected = try? String(contentsOf: url, encoding: .utf8) else {
            return XCTFail(
                "no golden file \(url.path); record it with PIPE_RECORD_SNAPSHOTS=1", file: file, line: line)
        }
        guard recorded != expected else { return }
        let actualLines = recorded.components(separatedBy: "\n")
        let expectedLines = expected.components(separatedBy: "\n")
        let common = min(actualLines.count, expectedLines.count)
        let index = (0..<common).first { actualLines[$0] != expectedLines[$0] } ?? common
        let shown = { (lines: [String]) in index < lines.count ? "'\(lines[index])'" : "(end of text)" }
        XCTFail(
            "help differs from \(name).txt at line \(index + 1):\n  expected: \(shown(expectedLines))\n"
                + "  actual:   \(shown(actualLines))\n(re-record with PIPE_RECORD_SNAPSHOTS=1 if intended)",
            file: file, line: line)
    }
}
