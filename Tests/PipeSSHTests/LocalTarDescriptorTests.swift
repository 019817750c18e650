import Foundation
import PipeTestSupport
import XCTest

@testable import PipeSSH

/// A local tar leaves no file descriptor behind: a controller runs thousands of transfers in one process.
final class LocalTarDescriptorTests: XCTestCase {
    private func openDescriptors() throws -> Int {
        try FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd").count
    }

    func testArchivingAndExtractingCloseEveryDescriptorTheyOpened() throws {
        let folder = try TemporaryDirectory(prefix: "pipe-local-tar")
        defer { folder.remove() }
        let source = folder.appending("source")
        try FileManager.default.createDirectory(at: source, withIntermediateDirectories: true)
        try "hello\n".write(to: source.appendingPathComponent("a.txt"), atomically: false, encoding: .utf8)
        // One round first: Foundation opens what it keeps for every later process (its manager's descriptors).
        _ = try roundTrip(source, into: folder.appending("warm-up"))
        let before = try openDescriptors()
        for index in 0..<5 {
            let copied = try roundTrip(source, into: folder.appending("copy-\(index)"))
            XCTAssertEqual(copied, "hello\n")
        }
        XCTAssertEqual(try openDescriptors(), before, "five archive-and-extract rounds left descriptors open")
    }

    /// Archives `source` with one local tar and extracts the stream into `target` with another.
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
            let writer = try LocalTar.extracting(into: target)
            var offset = 0
            while offset < archive.count {
                offset += try archive[offset...].withUnsafeBytes { try writer.write($0) }
                if offset < archive.count { usleep(1_000) }
            }
            XCTAssertEqual(writer.finish(waitingAtMost: 10).status, 0)
        }
        return try String(contentsOf: target.appendingPathComponent("a.txt"), encoding: .utf8)
    }
}
