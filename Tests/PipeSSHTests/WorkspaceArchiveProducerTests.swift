import Foundation
import PipeBasics
import PipeTestSupport
import XCTest

@testable import PipeSSH

#if canImport(Glibc)
    import Glibc
#endif

/// The archive made on its own thread is byte for byte the one `WorkspaceTarStream` makes, a failure to read a file
/// reaches the channel's side, and stopping never hangs.
final class WorkspaceArchiveProducerTests: XCTestCase {
    private var scratch: TemporaryDirectory!
    private var root: URL!

    override func setUpWithError() throws {
        scratch = try TemporaryDirectory(prefix: "pipe-producer")
        root = scratch.appending("root")
        for index in 0..<300 {
            let file = root.appendingPathComponent("folder\(index % 7)/file\(index).txt")
            try FileManager.default.createDirectory(
                at: file.deletingLastPathComponent(), withIntermediateDirectories: true)
            try Data(repeating: UInt8(index % 251), count: 1_000 + index * 97).write(to: file)
        }
        try Data(repeating: 5, count: WorkspaceDigest.wholeFileLimit * 3 + 17).write(
            to: root.appendingPathComponent("big.bin"))
    }

    override func tearDown() {
        scratch?.remove()
    }

    private func stream(_ entries: [WorkspaceManifest.Entry]) -> WorkspaceTarStream {
        WorkspaceTarStream(root: root, entries: entries, lastFile: ("manifest.test", { _ in Array("m\n".utf8) }))
    }

    /// Takes chunks as the channel does, waiting on the wake descriptor when none is ready.
    private func drain(_ producer: WorkspaceArchiveProducer) throws -> Data {
        var archive = Data()
        while true {
            switch try producer.next() {
            case .chunk(let chunk):
                archive.append(contentsOf: UnsafeRawBufferPointer(rebasing: chunk.buffer[0..<chunk.count]))
                producer.recycle(chunk)
            case .waiting:
                var wake = producer.wakeDescriptor
                _ = poll(&wake, 1, 1_000)
            case .ended:
                return archive
            }
        }
    }

    func testTheArchiveIsTheStreamsOwnWithItsLength() throws {
        let entries = try WorkspaceScanner.entries(under: root)
        let single = stream(entries)
        var expected = Data()
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: 100_000, alignment: 16)
        defer { buffer.deallocate() }
        while case let count = try single.fill(buffer), count > 0 {
            expected.append(contentsOf: UnsafeRawBufferPointer(rebasing: buffer[0..<count]))
        }

        let producer = try WorkspaceArchiveProducer(stream: stream(entries))
        let archive = try drain(producer)
        producer.stop()
        XCTAssertGreaterThan(archive.count, WorkspaceArchiveProducer.chunkSize * WorkspaceArchiveProducer.depth)
        // The last file's header carries the time it was made: compare everything before it, and the lengths.
        XCTAssertEqual(archive.count, expected.count)
        let lastHeader = try XCTUnwrap(expected.range(of: Data("manifest.test".utf8))).lowerBound
        XCTAssertEqual(archive.prefix(lastHeader), expected.prefix(lastHeader))
        XCTAssertEqual(producer.finish(), Int64(archive.count))
    }

    func testAFileThatCannotBeReadStopsTheArchiveWithItsError() throws {
        let entries = try WorkspaceScanner.entries(under: root)
        try FileManager.default.removeItem(at: root.appendingPathComponent("folder3/file150.txt"))
        let producer = try WorkspaceArchiveProducer(stream: stream(entries))
        XCTAssertThrowsError(try drain(producer)) { error in
            XCTAssertTrue(
                (error as? WorkspaceScanner.Failure)?.message.contains("file150.txt") ?? false, "\(error)")
        }
        producer.stop()
    }

    func testStoppingAProducerThatWaitsForRoomReturns() throws {
        let producer = try WorkspaceArchiveProducer(stream: stream(try WorkspaceScanner.entries(under: root)))
        // Nothing is taken: the producer fills its chunks and waits for one to come back.
        Thread.sleep(forTimeInterval: 0.2)
        let stopped = expectation(description: "stop() returned")
        DispatchQueue.global().async {
            producer.stop()
            stopped.fulfill()
        }
        wait(for: [stopped], timeout: 10)
    }
}
