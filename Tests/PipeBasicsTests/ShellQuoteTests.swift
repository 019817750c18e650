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

    private func runShell(_ line: String) throws -> Data {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/bin/sh")
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
