import Foundation
import PipeTestSupport
import XCTest

@testable import PipeSSH

/// A local tar and an extraction leave no file descriptor behind: a controller runs thousands of transfers in one
/// process.
final class LocalTarDescriptorTests: XCTestCase {
    private func openDescriptors() throws -> Int {
        try FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd").count
    }

    func testArchivingAndExtractingCloseEveryDescriptorTheyOpened() throws {
        let folder = try TemporaryDirectory(prefix: "pipe-local-tar")
        defer { folder.remove() }
        let source = folder.appending("source")
        try FileManager.default.createDirectory(
            at: source.appendingPathComponent("item"), withIntermediateDirectories: true)
        try "hello\n".write(to: source.appendingPathComponent("item/a.txt"), atomically: false, encoding: .utf8)
        // A few rounds first: Foundation and Dispatch open what they keep for every later process and thread (their
        // run loops' and worker threads' descriptors), as many as the threads they happen to use.
        for index in 0..<3 { _ = try roundTrip(source, into: folder.appending("warm-up-\(index)")) }
        let before = try openDescriptors()
        for index in 0..<20 {
            let copied = try roundTrip(source, into: folder.appending("copy-\(index)"))
            XCTAssertEqual(copied, "hello\n")
        }
        // One descriptor left by each round would show as 20 more; the slack is Dispatch's threads coming and going.
        XCTAssertLessThanOrEqual(
            try openDescriptors(), before + 3, "twenty archive-and-extract rounds left descriptors open")
    }

    /// tar starts on another thread: a tar that cannot start says so where the stream is read or written and in its
    /// exit, and leaves nothing open.
    func testATarThatCannotStartSaysSoAndLeavesNothingOpen() throws {
        let folder = try TemporaryDirectory(prefix: "pipe-local-tar")
        defer { folder.remove() }
        let missing = folder.appending("no-such-tar")
        let source = folder.appending("source")
        try FileManager.default.createDirectory(
            at: source.appendingPathComponent("item"), withIntermediateDirectories: true)
        try "hello\n".write(to: source.appendingPathComponent("item/a.txt"), atomically: false, encoding: .utf8)
        _ = try roundTrip(source, into: folder.appending("warm-up"))
        let before = try openDescriptors()
        do {
            let reader = try LocalTar.archiving(source, executable: missing)
            var buffer = [UInt8](repeating: 0, count: 512)
            var failure: LocalTarFailure?
            let deadline = Date().addingTimeInterval(10)
            while failure == nil && Date() < deadline {
                do {
                    let result = try buffer.withUnsafeMutableBytes { try reader.read(into: $0) }
                    if case .endOfStream = result { XCTFail("a tar that never ran ended its stream as if whole") }
                    if case .bytes = result { XCTFail("a tar that never ran wrote bytes") }
                    usleep(1_000)
                } catch let error as LocalTarFailure {
                    failure = error
                }
            }
            XCTAssertTrue(failure?.message.contains("cannot start tar") ?? false, "\(String(describing: failure))")
            let finished = reader.finish(waitingAtMost: 10)
            XCTAssertEqual(finished.status, 127)
            XCTAssertTrue(finished.errors.contains("cannot start tar"), finished.errors)
        }
        XCTAssertEqual(try openDescriptors(), before, "a tar that could not start left descriptors open")
    }

    /// Archives `source` (holding `item`) with a local tar and extracts the stream into `target`.
    private func roundTrip(_ source: URL, into target: URL) throws -> String {
        try FileManager.default.createDirectory(at: target, withIntermediateDirectories: true)
        var archive: [UInt8] = []
        do {
            let reader = try LocalTar.archiving(source)
            var buffer = [UInt8](repeating: 0, count: 65_536)
            reading: while true {
                let result = try buffer.withUnsafeMutableBytes { try reader.read(into: $0) }
                switch result {
                case .bytes(let count): archive += buffer[0..<count]
                case .wouldBlock: usleep(1_000)
                case .endOfStream: break reading
                }
            }
            XCTAssertEqual(reader.finish(waitingAtMost: 10).status, 0)
        }
        do {
            let writer = try PulledArchiveExtractor(into: target, item: "item", maximumBytes: 1 << 20)
            var offset = 0
            while offset < archive.count {
                offset += try archive[offset...].withUnsafeBytes { try writer.write($0) }
                if offset < archive.count { usleep(1_000) }
            }
            let ending = writer.finish(waitingAtMost: 10)
            guard case .extracted = ending else {
                XCTFail("the extraction did not finish: \(ending)")
                return ""
            }
        }
        return try String(contentsOf: target.appendingPathComponent("item/a.txt"), encoding: .utf8)
    }
}
