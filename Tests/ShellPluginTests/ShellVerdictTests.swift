import Foundation
import PipeCore
import XCTest

@testable import ShellPlugin

final class ShellVerdictTests: XCTestCase {
    func testExitZeroPasses() {
        XCTAssertEqual(ShellPlugin.verdict(.exited(0), timeout: nil).0, .passed)
    }

    func testAnyOtherExitOrASignalFailsTheCheck() {
        XCTAssertEqual(ShellPlugin.verdict(.exited(1), timeout: nil).0, .testsFailed)
        XCTAssertEqual(ShellPlugin.verdict(.exited(1), timeout: nil).1, "the command exited 1")
        XCTAssertEqual(ShellPlugin.verdict(.exited(2), timeout: nil).0, .testsFailed)
        XCTAssertEqual(ShellPlugin.verdict(.signaled("SEGV"), timeout: nil).0, .testsFailed)
    }

    func testCommandNotFoundOrNotExecutableIsTheHostsConfiguration() {
        XCTAssertEqual(ShellPlugin.verdict(.exited(127), timeout: nil).0, .hostConfig)
        XCTAssertTrue(ShellPlugin.verdict(.exited(127), timeout: nil).1.contains("could not find"))
        XCTAssertEqual(ShellPlugin.verdict(.exited(126), timeout: nil).0, .hostConfig)
    }

    func testTimeoutCancellationAndALostConnectionAreTheirOwnOutcomes() {
        XCTAssertEqual(ShellPlugin.verdict(.timedOut, timeout: 3).0, .timedOut)
        XCTAssertEqual(ShellPlugin.verdict(.timedOut, timeout: 3).1, "the command ran past the layer's timeout (3 s)")
        XCTAssertEqual(ShellPlugin.verdict(.cancelled, timeout: nil).0, .cancelled)
        XCTAssertEqual(ShellPlugin.verdict(.lost("EOF"), timeout: nil).0, .infrastructure)
    }

    func testTheTailKeepsTheLastLinesAcrossChunksAndCharacters() {
        var tail = OutputTail(keeping: 3)
        let text = "one\ntwo\nthree\nfour\nfünf"
        let bytes = Array(text.utf8)
        // Split inside the two-byte "ü" to check characters survive a chunk boundary.
        let cut = bytes.firstIndex(of: 0xC3)! + 1
        tail.append(Data(bytes[..<cut]))
        tail.append(Data(bytes[cut...]))
        XCTAssertEqual(tail.lines, ["three", "four", "fünf"])
    }

    func testTheTailDropsBlankLinesAndBoundsAnEndlessLine() {
        var tail = OutputTail(keeping: 2)
        tail.append(Data("a\n\n   \n".utf8))
        XCTAssertEqual(tail.lines, ["a"])
        tail.append(Data(String(repeating: "x", count: 70_000).utf8))
        XCTAssertEqual(tail.lines.count, 2)
        XCTAssertTrue(tail.lines[1].hasSuffix("…"))
    }
}
