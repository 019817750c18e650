import XCTest

@testable import PipeServer

final class DispatchStatsTests: XCTestCase {
    private func stats(_ microseconds: [UInt64]) -> DispatchStats {
        var stats = DispatchStats()
        for value in microseconds {
            _ = stats.record(nanoseconds: value * 1000, cpuNanoseconds: 0, started: 1, launchNanoseconds: 0)
        }
        return stats
    }

    func testTheNinetyNinthPercentileIsTheTimeWithinWhichAllButOneInAHundredDecisionsWereMade() {
        // 98 quick decisions, one of 4.2 ms and one of 30 ms: 99 of 100 were made within 4.3 ms (a step up).
        let stats = stats(Array(repeating: 250, count: 98) + [4_200, 30_000])
        XCTAssertEqual(stats.percentileMicroseconds(0.99), 4_300)
        XCTAssertEqual(stats.percentileMicroseconds(0.5), 300)
        XCTAssertEqual(stats.percentileMicroseconds(1), 30_100)
        XCTAssertTrue(stats.notice.message.contains("p99 4300 µs, max 30000 µs"), stats.notice.message)
    }

    func testDecisionsPastTheLastBucketReportTheLongestOne() {
        let stats = stats([50, 250_000, 400_000])
        XCTAssertEqual(stats.percentileMicroseconds(0.99), 400_000, "beyond 100 ms the maximum is what is known")
        XCTAssertEqual(DispatchStats().percentileMicroseconds(0.99), 0, "no decisions, no time")
    }
}
