import PipeCore
import XCTest

@testable import PipeSSH

/// When a workspace upload is compressed: only where the link is slower than zlib compresses.
final class WorkspaceCompressionChoiceTests: XCTestCase {
    private let big: Int64 = 60_000_000

    private func compresses(
        _ setting: UploadCompression, bytes: Int64? = nil, roundTrip: Double? = nil, observed: Double? = nil
    ) -> Bool {
        WorkspaceCompressionChoice.compresses(
            setting, bytes: bytes ?? big, roundTripSeconds: roundTrip, observedBytesPerSecond: observed)
    }

    func testNoneAndGzipAreTakenAtTheirWord() {
        XCTAssertFalse(compresses(.none, roundTrip: 0.2, observed: 1e6))
        XCTAssertTrue(compresses(.gzip, roundTrip: 0.0001, observed: 1e9))
        XCTAssertTrue(compresses(.gzip, bytes: 10))
        XCTAssertFalse(compresses(.gzip, bytes: 0), "nothing to send")
    }

    func testAutoLeavesALinkItKnowsNothingAboutOrAFastOneUncompressed() {
        XCTAssertFalse(compresses(.auto))
        XCTAssertFalse(compresses(.auto, roundTrip: 0.0001), "loopback: the window allows 21 GB/s")
        XCTAssertFalse(compresses(.auto, roundTrip: 0.002, observed: 200e6), "a LAN moving 200 MB/s")
    }

    func testAutoCompressesWhereTheWindowOrTheLastUploadSaysTheLinkIsSlowerThanZlib() {
        // 2 MiB a round trip: 50 ms → 42 MB/s, below zlib's 50 MB/s.
        XCTAssertTrue(compresses(.auto, roundTrip: 0.05))
        XCTAssertFalse(compresses(.auto, roundTrip: 0.02), "20 ms → 105 MB/s")
        XCTAssertTrue(compresses(.auto, roundTrip: 0.0005, observed: 12e6), "a 100 Mbit/s link nearby")
        XCTAssertTrue(compresses(.auto, roundTrip: 0.05, observed: 500e6), "the window caps what was seen")
    }

    func testAutoDoesNotCompressWhatIsTooSmallToGain() {
        XCTAssertFalse(compresses(.auto, bytes: 20_000, roundTrip: 0.2))
        XCTAssertTrue(compresses(.auto, bytes: WorkspaceCompressionChoice.minimumBytes, roundTrip: 0.2))
    }
}
