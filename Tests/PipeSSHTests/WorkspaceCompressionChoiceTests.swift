import PipeCore
import XCTest

@testable import PipeSSH

/// How a workspace upload travels: compressed only where the link is slower than the compressor, with zstd where
/// the host has it.
final class WorkspaceCompressionChoiceTests: XCTestCase {
    private let big: Int64 = 60_000_000

    private func choice(
        _ setting: UploadCompression, bytes: Int64? = nil, zstd: Bool = false, roundTrip: Double? = nil,
        observed: Double? = nil
    ) -> ArchiveCompression {
        WorkspaceCompressionChoice.choose(
            setting, bytes: bytes ?? big, hostHasZstd: zstd, roundTripSeconds: roundTrip,
            observedBytesPerSecond: observed)
    }

    func testNoneGzipAndZstdAreTakenAtTheirWord() {
        XCTAssertEqual(choice(.none, zstd: true, roundTrip: 0.2, observed: 1e6), .none)
        XCTAssertEqual(choice(.gzip, zstd: true, roundTrip: 0.0001, observed: 1e9), .gzip)
        XCTAssertEqual(choice(.gzip, bytes: 10), .gzip)
        XCTAssertEqual(choice(.gzip, bytes: 0), .none, "nothing to send")
        XCTAssertEqual(choice(.zstd, zstd: true, roundTrip: 0.0001, observed: 1e9), .zstd)
        XCTAssertEqual(choice(.zstd, bytes: 0, zstd: true), .none, "nothing to send")
    }

    func testZstdOnAHostWithoutItFallsBackToGzip() {
        XCTAssertEqual(choice(.zstd, zstd: false), .gzip)
    }

    func testAutoLeavesALinkItKnowsNothingAboutOrAFastOneUncompressed() {
        XCTAssertEqual(choice(.auto), .none)
        XCTAssertEqual(choice(.auto, zstd: true), .none)
        XCTAssertEqual(choice(.auto, zstd: true, roundTrip: 0.0001), .none, "loopback: the window allows 21 GB/s")
        XCTAssertEqual(choice(.auto, zstd: true, roundTrip: 0.002, observed: 300e6), .none, "a LAN moving 300 MB/s")
    }

    func testAutoCompressesWhereTheWindowOrTheLastUploadSaysTheLinkIsSlowerThanZlib() {
        // 2 MiB a round trip: 50 ms → 42 MB/s, below zlib's 50 MB/s.
        XCTAssertEqual(choice(.auto, roundTrip: 0.05), .gzip)
        XCTAssertEqual(choice(.auto, roundTrip: 0.02), .none, "20 ms → 105 MB/s")
        XCTAssertEqual(choice(.auto, roundTrip: 0.0005, observed: 12e6), .gzip, "a 100 Mbit/s link nearby")
        XCTAssertEqual(choice(.auto, roundTrip: 0.05, observed: 500e6), .gzip, "the window caps what was seen")
    }

    func testAutoTakesZstdWhereTheHostHasItAndTheLinkIsSlowerThanZstd() {
        XCTAssertEqual(choice(.auto, zstd: true, roundTrip: 0.05), .zstd)
        XCTAssertEqual(choice(.auto, zstd: true, roundTrip: 0.02), .zstd, "105 MB/s: too fast for zlib, not for zstd")
        XCTAssertEqual(choice(.auto, zstd: false, roundTrip: 0.02), .none)
        XCTAssertEqual(choice(.auto, zstd: true, roundTrip: 0.0005, observed: 250e6), .none, "faster than zstd")
    }

    func testAutoDoesNotCompressWhatIsTooSmallToGain() {
        XCTAssertEqual(choice(.auto, bytes: 20_000, zstd: true, roundTrip: 0.2), .none)
        XCTAssertEqual(choice(.auto, bytes: WorkspaceCompressionChoice.minimumBytes, roundTrip: 0.2), .gzip)
        XCTAssertEqual(
            choice(.auto, bytes: WorkspaceCompressionChoice.minimumBytes, zstd: true, roundTrip: 0.2), .zstd)
    }
}
