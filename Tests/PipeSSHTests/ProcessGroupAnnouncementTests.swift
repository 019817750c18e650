import XCTest

@testable import PipeSSH

final class ProcessGroupAnnouncementTests: XCTestCase {
    private let marker = "PIPE-PGID-0123456789abcdef"

    /// Feeds `stream` in pieces split at `cuts`; returns what passed and the group.
    private func feed(_ stream: String, cuts: [Int]) -> (passed: String, group: Int32?) {
        var announcement = ProcessGroupAnnouncement(marker: marker)
        let bytes = Array(stream.utf8)
        var passed = [UInt8]()
        var start = 0
        for end in cuts + [bytes.count] where end >= start {
            passed += bytes[start..<end].withUnsafeBytes { announcement.filter($0) }
            start = end
        }
        passed += announcement.flush()
        return (String(decoding: passed, as: UTF8.self), announcement.processGroup)
    }

    func testAnnouncementIsRemovedWhereverTheChunksSplit() {
        let stream = "login banner\n\(marker) 4242\nreal error output\n"
        for cut in 0...stream.utf8.count {
            for second in cut...stream.utf8.count {
                let result = feed(stream, cuts: [cut, second])
                XCTAssertEqual(result.passed, "login banner\nreal error output\n", "cuts at \(cut), \(second)")
                XCTAssertEqual(result.group, 4242, "cuts at \(cut), \(second)")
            }
        }
    }

    func testOutputWithoutAnnouncementPassesWhole() {
        let result = feed("sh: 1: exec: /bin/sh: not found\n", cuts: [3, 10])
        XCTAssertEqual(result.passed, "sh: 1: exec: /bin/sh: not found\n")
        XCTAssertNil(result.group)
    }

    func testMalformedAnnouncementIsNotTrusted() {
        for bad in ["-1", "1", "0", "abc", ""] {
            let result = feed("\(marker) \(bad)\nrest\n", cuts: [])
            XCTAssertNil(result.group, bad)
            XCTAssertEqual(result.passed, "\(marker) \(bad)\nrest\n")
        }
    }

    func testLaterLookalikesPassThrough() {
        let result = feed("\(marker) 77\nthen \(marker) 88\n", cuts: [5])
        XCTAssertEqual(result.group, 77)
        XCTAssertEqual(result.passed, "then \(marker) 88\n")
    }
}
