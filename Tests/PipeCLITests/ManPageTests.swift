import Foundation
import PipeTestSupport
import XCTest

@testable import PipeCLI

/// The man page is made from the same command tree as `--help`: rendered by man itself, every command and every
/// option is on it.
final class ManPageTests: XCTestCase {
    private func rendered() throws -> String {
        let folder = try TemporaryDirectory(prefix: "pipe-man")
        defer { folder.remove() }
        let page = folder.appending("pipe.1")
        let text = ManPageFormatter(root: PipeCommandLine.root, version: "pipe 0.1.0", versionHasJSON: true).render()
        try text.write(to: page, atomically: true, encoding: .utf8)
        let result = try CommandRunner.shell(
            "MANWIDTH=200 man --warnings -E UTF-8 -P cat -l \(page.path) 2>&1", currentDirectory: folder.url)
        XCTAssertEqual(result.exitCode, 0, result.combined)
        return result.stdout
    }

    func testEveryCommandAndOptionIsOnThePage() throws {
        let page = try rendered()
        XCTAssertFalse(page.contains("warning:"), "man's warnings about the page:\n\(page)")
        func walk(_ command: CommandSpec, path: [String]) {
            let name = (path + [command.name]).joined(separator: " ")
            if path.count > 0 { XCTAssertTrue(page.contains(name), "\(name) is missing") }
            for option in command.options {
                XCTAssertTrue(page.contains(option.longFlag), "\(option.longFlag) of \(name) is missing")
            }
            for argument in command.arguments {
                XCTAssertTrue(page.contains("<\(argument.name)>"), "<\(argument.name)> of \(name) is missing")
            }
            for sub in command.subcommands { walk(sub, path: path + [command.name]) }
        }
        walk(PipeCommandLine.root, path: [])
        for text in ["EXIT CODES", "130", "SIM_UDID", "--version", "pipe 0.1.0"] {
            XCTAssertTrue(page.contains(text), "\(text) is missing")
        }
    }

    func testRoffControlCharactersInTextAreShownAsWritten() {
        XCTAssertEqual(ManPageFormatter.escaped(".pipe/hosts.yml"), "\\&.pipe/hosts.yml")
        XCTAssertEqual(ManPageFormatter.escaped(#"a\b --x"#), #"a\eb \-\-x"#)
    }
}
