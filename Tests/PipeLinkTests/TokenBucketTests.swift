import PipeLink
import XCTest

/// The relay's pacing as arithmetic, on a clock the test sets.
final class TokenBucketTests: XCTestCase {
    func testAFullBucketLetsABurstLeaveAtOnce() {
        var bucket = TokenBucket(bytesPerSecond: 1_000_000, burstBytes: 16_384)
        XCTAssertEqual(bucket.departure(of: 16_384, arrivingAt: 0), 0)
        XCTAssertEqual(bucket.tokens, 0)
    }

    func testASteadyStreamLeavesAtTheRateLessOneBurst() {
        var bucket = TokenBucket(bytesPerSecond: 1_000_000, burstBytes: 16_384)
        var last = 0.0
        var previous = -1.0
        for _ in 0..<100 {
            last = bucket.departure(of: 10_000, arrivingAt: 0)
            XCTAssertGreaterThanOrEqual(last, previous, "chunks leave in the order they arrive")
            previous = last
        }
        XCTAssertEqual(last, (1_000_000 - 16_384) / 1_000_000, accuracy: 1e-9)
    }

    func testAChunkLargerThanTheBurstWaitsForTheMissingTokens() {
        var bucket = TokenBucket(bytesPerSecond: 1_000, burstBytes: 100)
        XCTAssertEqual(bucket.departure(of: 600, arrivingAt: 2), 2.5, accuracy: 1e-12)
    }

    func testAnIdleLinkRefillsOnlyUpToTheBurst() {
        var bucket = TokenBucket(bytesPerSecond: 1_000, burstBytes: 100)
        XCTAssertEqual(bucket.departure(of: 100, arrivingAt: 0), 0)
        // Ten idle seconds would be 10,000 tokens; the bucket holds 100.
        XCTAssertEqual(bucket.departure(of: 100, arrivingAt: 10), 10)
        XCTAssertEqual(bucket.departure(of: 100, arrivingAt: 10), 10.1, accuracy: 1e-12)
    }

    func testAnArrivalWhileTheLinkIsBusyQueuesBehindIt() {
        var bucket = TokenBucket(bytesPerSecond: 1_000, burstBytes: 100)
        XCTAssertEqual(bucket.departure(of: 1_100, arrivingAt: 0), 1.0, accuracy: 1e-12)
        // Arrives at 0.5, while the first chunk is still leaving: it goes after it.
        XCTAssertEqual(bucket.departure(of: 50, arrivingAt: 0.5), 1.05, accuracy: 1e-12)
    }
}
