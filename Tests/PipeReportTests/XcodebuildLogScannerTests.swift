import Foundation
import PipeApple
import XCTest

final class XcodebuildLogScannerTests: XCTestCase {
    private func log(_ name: String) throws -> Data { try Fixture.data("report/\(name)/xcodebuild.log") }

    func testAnyChunkingGivesTheSameEventsAndFacts() throws {
        let data = try log("log-test-failed-xcode15")
        let whole = XcodebuildLogScanner()
        let wholeEvents = whole.feed(data) + whole.finish()
        for size in [1, 7, 64, 4096] {
            let scanner = XcodebuildLogScanner()
            var events: [XcodebuildLogEvent] = []
            var offset = 0
            while offset < data.count {
                events += scanner.feed(data.subdata(in: offset..<min(offset + size, data.count)))
                offset += size
            }
            events += scanner.finish()
            XCTAssertEqual(events, wholeEvents, "chunks of \(size) bytes")
            XCTAssertEqual(scanner.facts, whole.facts, "chunks of \(size) bytes")
            XCTAssertEqual(scanner.bytesRead, Int64(data.count))
            XCTAssertEqual(scanner.lastLines(3), whole.lastLines(3))
        }
        XCTAssertEqual(whole.lastLines(2), ["** TEST FAILED **", "Testing started"])
    }

    func testANulByteStopsReadingAtItsLineAndKeepsTheLinesBefore() throws {
        let scanner = XcodebuildLogScanner()
        _ = scanner.feed(Data("Test Case '-[M.C testA]' passed (0.001 seconds).\nhalf a li".utf8))
        var binary = Data("ne\u{1F}".utf8)
        binary.append(contentsOf: [0x00, 0x41, 0x0A])
        _ = scanner.feed(binary)
        _ = scanner.feed(Data("Test Case '-[M.C testB]' passed (0.001 seconds).\n".utf8))
        _ = scanner.finish()
        XCTAssertEqual(scanner.stop?.byteOffset, 61)
        XCTAssertEqual(scanner.stop?.line, 2)
        XCTAssertEqual(scanner.stop?.reason, "a NUL byte: this is binary data, not an xcodebuild log")
        XCTAssertEqual(scanner.facts.lineCount, 1, "the line holding the NUL is not read")
        XCTAssertEqual(scanner.facts.passedCount, 1, "nothing after the NUL is read")
        XCTAssertEqual(scanner.lastLines(5), ["Test Case '-[M.C testA]' passed (0.001 seconds)."])
    }

    func testTheTailKeepsOnlyWholeLines() {
        var text = ""
        for index in 1...20 { text += "line \(index) of the log\r\n" }
        // 45 bytes hold lines 19 and 20 (20 bytes each) and the end of line 18, which is not shown.
        let whole = XcodebuildLogScanner(tailBytes: 45)
        _ = whole.feed(Data(text.utf8))
        XCTAssertEqual(whole.lastLines(10), ["line 19 of the log", "line 20 of the log"])
        let lineByLine = XcodebuildLogScanner(tailBytes: 45)
        for line in text.split(separator: "\n") { _ = lineByLine.feed(Data((line + "\n").utf8)) }
        // Fed line by line, the tail holds up to twice its size: whole lines only, the last ones, in order.
        let shown = lineByLine.lastLines(10)
        let all = (1...20).map { "line \($0) of the log" }
        XCTAssertGreaterThanOrEqual(shown.count, 2)
        XCTAssertEqual(shown, Array(all.suffix(shown.count)))
    }
}
