import Foundation
import PipeApple
import PipeCore
import XCTest

final class XcodebuildLogParserStreamingTests: XCTestCase {
    private let fixtures = [
        "test-failed-xcode15.log", "swift-testing-native.log", "swift-testing-sf-symbols.log",
        "build-failed-during-test.log", "parallel-xctest.log", "error-destination-not-found-xcode14.log",
    ]

    private func feed(_ log: Data, chunkSizes: [Int]) -> (events: [XcodebuildLogEvent], facts: XcodebuildLogFacts) {
        let parser = XcodebuildLogParser()
        var events: [XcodebuildLogEvent] = []
        var offset = log.startIndex
        var sizeIndex = 0
        while offset < log.endIndex {
            let size = chunkSizes[sizeIndex % chunkSizes.count]
            sizeIndex += 1
            let end = min(offset + size, log.endIndex)
            events += parser.feed(log[offset..<end])
            offset = end
        }
        events += parser.finish()
        return (events, parser.facts)
    }

    func testAnyChunkingGivesTheSameEventsAndFacts() throws {
        var generator = SystemRandomNumberGenerator()
        for fixture in fixtures {
            let log = try Fixture.data("xcodebuild/\(fixture)")
            let whole = XcodebuildLogParser.parse(log)
            XCTAssertFalse(whole.events.isEmpty, fixture)
            // Byte by byte splits every multi-byte character (`…`, `✔`, SF Symbols) across chunks.
            let byteByByte = feed(log, chunkSizes: [1])
            XCTAssertEqual(byteByByte.events, whole.events, fixture)
            XCTAssertEqual(byteByByte.facts, whole.facts, fixture)
            let random = feed(log, chunkSizes: (0..<16).map { _ in Int.random(in: 1...97, using: &generator) })
            XCTAssertEqual(random.events, whole.events, fixture)
            XCTAssertEqual(random.facts, whole.facts, fixture)
        }
    }

    func testCRLFAndCRLineEndsGiveTheSameResultAsLF() throws {
        for fixture in fixtures {
            let text = try Fixture.text("xcodebuild/\(fixture)")
            let lf = XcodebuildLogParser.parse(Data(text.utf8))
            let crlf = Data(text.replacingOccurrences(of: "\n", with: "\r\n").utf8)
            let cr = Data(text.replacingOccurrences(of: "\n", with: "\r").utf8)
            for variant in [crlf, cr] {
                let whole = XcodebuildLogParser.parse(variant)
                XCTAssertEqual(whole.events, lf.events, fixture)
                XCTAssertEqual(whole.facts, lf.facts, fixture)
                // A CRLF cut between its CR and LF must not count an extra empty line.
                let split = feed(variant, chunkSizes: [1, 2, 3])
                XCTAssertEqual(split.facts.lineCount, lf.facts.lineCount, fixture)
                XCTAssertEqual(split.events, lf.events, fixture)
            }
        }
    }

    func testUTF8CharacterSplitBetweenTwoChunks() {
        let line = Data("\u{2714} Test caf\u{E9}() passed after 0.001 seconds.\n".utf8)
        let parser = XcodebuildLogParser()
        XCTAssertEqual(parser.feed(line.prefix(1)), [])
        XCTAssertEqual(parser.feed(line.dropFirst(1).prefix(1)), [])
        let events = parser.feed(line.dropFirst(2))
        XCTAssertEqual(
            events,
            [
                .testFinished(
                    TestCaseResult(identifier: "caf\u{E9}()", status: .passed, durationSeconds: 0.001),
                    origin: .swiftTesting)
            ])
    }

    func testLastLineWithoutNewlineIsReadAtFinish() {
        let parser = XcodebuildLogParser()
        XCTAssertEqual(parser.feed(Data("** TEST SUCCEEDED ** [1.250 sec]".utf8)), [])
        XCTAssertNil(parser.facts.banner)
        let events = parser.finish()
        XCTAssertEqual(events.count, 1)
        XCTAssertEqual(parser.facts.banner?.result, .succeeded)
        XCTAssertEqual(parser.facts.banner?.seconds, 1.25)
    }

    func testLinesAfterTheBannerStillCount() {
        let log =
            "** TEST FAILED **\n\nTesting started\n"
            + "Test case 'ReadingIDTests.testEmpty()' failed on 'Clone 1 of iPhone 15 - Reader (123)' (0.010 seconds)\n"
            + "Failing tests:\n\tReadingIDTests.testEmpty()\n"
        let (_, facts) = XcodebuildLogParser.parse(Data(log.utf8))
        XCTAssertEqual(facts.failedCount, 1)
        XCTAssertEqual(facts.failingTestsListed.items, ["ReadingIDTests/testEmpty()"])
        XCTAssertEqual(facts.banner?.line, "** TEST FAILED **")
    }

    func testMemoryStaysBoundedOnAHugeLog() throws {
        let parser = XcodebuildLogParser(maxLineBytes: 4096)
        let failing = Data(
            (0..<2_000).map { "Test Case '-[ReaderTests.Many test\($0)]' failed (0.001 seconds).\n" }.joined().utf8)
        for _ in 0..<10 { _ = parser.feed(failing) }
        // 8 MiB without a newline, then a banner: the line is cut, the banner still read.
        let noNewline = Data(repeating: UInt8(ascii: "x"), count: 1 << 20)
        for _ in 0..<8 { _ = parser.feed(noNewline) }
        _ = parser.feed(Data("\n** TEST FAILED **\n".utf8))
        _ = parser.finish()
        let facts = parser.facts
        XCTAssertEqual(facts.failedCount, 20_000)
        XCTAssertEqual(facts.failedTests.items.count, XcodebuildLogFacts.listLimit)
        XCTAssertEqual(facts.failedTests.totalCount, 20_000)
        XCTAssertEqual(facts.failedTests.omittedCount, 20_000 - XcodebuildLogFacts.listLimit)
        XCTAssertEqual(facts.banner?.line, "** TEST FAILED **")
        XCTAssertEqual(facts.lineCount, 20_002)
    }

    /// Throughput on a log shaped like a real one (mostly build noise); printed for the record, checked loosely.
    func testThroughputOnALargeLog() throws {
        var noise = ""
        for index in 0..<400 {
            noise +=
                "CompileSwift normal arm64 /Users/ci/work/Sources/Module/File\(index).swift (in target 'App' from project 'App')\n"
            noise +=
                "    cd /Users/ci/work\n    builtin-swiftTaskExecution -- /Applications/Xcode.app/Contents/Developer/Toolchains/XcodeDefault.xctoolchain/usr/bin/swift-frontend -frontend -c -primary-file /Users/ci/work/Sources/Module/File\(index).swift -emit-module-path /tmp/x\n"
            noise +=
                "Test Case '-[AppTests.Suite test\(index)]' started.\nTest Case '-[AppTests.Suite test\(index)]' passed (0.001 seconds).\n"
        }
        let chunk = Data(noise.utf8)
        let parser = XcodebuildLogParser()
        let start = Date()
        var bytes = 0
        while bytes < 16 << 20 {
            _ = parser.feed(chunk)
            bytes += chunk.count
        }
        let seconds = Date().timeIntervalSince(start)
        print(
            "XcodebuildLogParser: \(bytes >> 20) MiB, \(parser.facts.lineCount) lines in "
                + String(format: "%.2f s = %.0f MiB/s", seconds, Double(bytes >> 20) / seconds))
        XCTAssertEqual(parser.facts.passedCount, bytes / chunk.count * 400)
        XCTAssertLessThan(seconds, 60, "parsing must keep up with any real xcodebuild output")
    }
}
