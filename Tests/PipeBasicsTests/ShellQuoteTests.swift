import Foundation
import PipeBasics
import XCTest

final class ShellQuoteTests: XCTestCase {
    /// Values a pipeline, a chat message or an environment variable could carry; none may escape its word.
    let hostileValues = [
        "Reader", "My Scheme", "it's", "\"quoted\"", "$(touch /tmp/pwned)", "`id`", "a; rm -rf /", "line\nbreak",
        "tab\there", "back\\slash", "*", "~", "", "--flag", "'", "''", "$HOME", "a|b&c>d<e", "ünïcødé",
    ]

    func testEveryValueReachesAPOSIXShellAsExactlyOneUnchangedWord() throws {
        for value in hostileValues {
            let line = "printf '%s\\0' " + ShellQuote.quote(value)
            let output = try runShell(line)
            XCTAssertEqual(output, Data(value.utf8) + Data([0]), "value \(value.debugDescription) changed in the shell")
        }
    }

    func testJoinKeepsArgumentBoundaries() throws {
        let output = try runShell("printf '%s\\0' " + ShellQuote.join(hostileValues))
        let words = output.split(separator: 0, omittingEmptySubsequences: false).dropLast().map {
            String(decoding: $0, as: UTF8.self)
        }
        XCTAssertEqual(words, hostileValues)
    }

    func testPlainWordsStayReadable() {
        XCTAssertEqual(ShellQuote.quote("platform=iOS Simulator,id=ABC"), "'platform=iOS Simulator,id=ABC'")
        XCTAssertEqual(
            ShellQuote.quote("-only-testing:ReaderTests/ReadingIDTests"), "-only-testing:ReaderTests/ReadingIDTests")
        XCTAssertEqual(ShellQuote.quote("it's"), "'it'\\''s'")
    }

    func testAWordThatReadsAsAnAssignmentIsQuotedSoTheShellRunsIt() throws {
        XCTAssertEqual(ShellQuote.quote("A=b"), "'A=b'")
        XCTAssertEqual(ShellQuote.quote("_x1=b"), "'_x1=b'")
        XCTAssertEqual(ShellQuote.quote("=ls"), "'=ls'")
        XCTAssertEqual(ShellQuote.quote("--flag=value"), "--flag=value")
        XCTAssertEqual(ShellQuote.quote("1A=b"), "1A=b")

        // As the first word, `A=b` unquoted would set a variable and run nothing.
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("shellquote-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let program = folder.appendingPathComponent("A=b")
        try Data("#!/bin/sh\nprintf ran\n".utf8).write(to: program)
        try FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: program.path)
        for shell in ["/bin/sh", "/usr/bin/zsh"] {
            let line = "PATH=\(ShellQuote.quote(folder.path)):$PATH; " + ShellQuote.join(["A=b"])
            XCTAssertEqual(try runShell(line, shell: shell), Data("ran".utf8), shell)
        }
    }

    func testZshReadsEveryValueBackUnchanged() throws {
        for value in hostileValues + ["=ls", "A=b", "a=(x)", "{a,b}", "^x", "#x"] {
            let output = try runShell("printf '%s\\0' " + ShellQuote.quote(value), shell: "/usr/bin/zsh")
            XCTAssertEqual(output, Data(value.utf8) + Data([0]), "value \(value.debugDescription) changed in zsh")
        }
    }

    private func runShell(_ line: String, shell: String = "/bin/sh") throws -> Data {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: shell)
        process.arguments = ["-c", line]
        let pipe = Pipe()
        process.standardOutput = pipe
        try process.run()
        let data = pipe.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        XCTAssertEqual(process.terminationStatus, 0)
        return data
    }
}
