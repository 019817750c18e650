import Foundation
import PipeCore
import XCTest

/// Replay claims and rate buckets answer the same on both backends.
final class RequestLedgerConformanceTests: ConformanceTestCase {
    func testASignedRequestIsClaimedOnceUntilItsClaimExpires() throws {
        let now = StoreFixtures.epoch
        let answers = try onBothBackends { store, backend -> [Bool] in
            let until = now.addingTimeInterval(600)
            let first = try store.claimOnce(kind: "chat-signature", key: "ab01", until: until, now: now)
            let again = try store.claimOnce(
                kind: "chat-signature", key: "ab01", until: until, now: now.addingTimeInterval(599))
            let otherKind = try store.claimOnce(kind: "webhook", key: "ab01", until: until, now: now)
            let afterExpiry = try store.claimOnce(
                kind: "chat-signature", key: "ab01", until: now.addingTimeInterval(1_200),
                now: now.addingTimeInterval(600))
            XCTAssertEqual([first, again, otherKind, afterExpiry], [true, false, true, true], backend.rawValue)
            return [first, again, otherKind, afterExpiry]
        }
        assertSame(answers, "replay claims")
    }

    func testABucketLetsABurstThroughThenOneRequestPerRefill() throws {
        let now = StoreFixtures.epoch
        let answers = try onBothBackends { store, backend -> [Double?] in
            // 3 a minute: three at once, then one every 20 s.
            let take = { (seconds: Double) in
                try store.takeFromBucket(
                    "chat-user:U1", capacity: 3, perSecond: 0.05, now: now.addingTimeInterval(seconds))
            }
            let burst = try (0..<3).map { _ in try take(0) }
            XCTAssertEqual(burst.compactMap { $0 }, [], "a burst of 3 passes on \(backend.rawValue)")
            let fourth = try take(0)
            XCTAssertEqual(try XCTUnwrap(fourth), 20, accuracy: 0.001, backend.rawValue)
            XCTAssertNil(try take(20), "one more after 20 s on \(backend.rawValue)")
            XCTAssertNil(
                try store.takeFromBucket("chat-user:U2", capacity: 3, perSecond: 0.05, now: now),
                "another user has a bucket of their own")
            return burst + [fourth, try take(20)]
        }
        assertSame(answers, "rate buckets")
    }
}
