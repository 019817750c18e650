import Foundation
import PipeTestSupport
import XCTest

/// Scripted faults and GitHub's rate-limit headers, as a forge client meets them.
final class ForgeStandInFaultTests: XCTestCase {
    private var standIn: ForgeStandIn!
    private let statuses = "/repos/octo/app/statuses/6dcb09b5b57875f334f61aebed695e2e4193db5e"
    private let status: [String: Any] = ["state": "success", "context": "pipe/x/merge"]

    override func setUpWithError() throws { standIn = try ForgeStandIn.start() }
    override func tearDown() { standIn?.stop() }

    func testASecondaryRateLimitAnswersTheNextMatchingRequestsWithRetryAfter() throws {
        try standIn.script(.init(.secondaryRateLimit, count: 2, path: "/statuses/", retryAfter: 7))
        let other = try standIn.call(.github, "GET", "/repos/octo/app/issues/2/comments")
        XCTAssertEqual(other.status, 200, "a path that does not match is answered as usual")
        for _ in 1...2 {
            let limited = try standIn.call(.github, "POST", statuses, json: status)
            XCTAssertEqual(limited.status, 403, limited.text)
            XCTAssertEqual(limited.header("Retry-After"), "7")
            XCTAssertTrue(limited.text.contains("secondary rate limit"), limited.text)
        }
        XCTAssertEqual(try standIn.call(.github, "POST", statuses, json: status).status, 201)
        let recorded = try standIn.requests()
        XCTAssertEqual(recorded.map(\.fault), [nil, "secondary-rate-limit", "secondary-rate-limit", nil])
        XCTAssertTrue(recorded.allSatisfy(\.valid), "a fault answers a valid request: \(recorded)")
        XCTAssertEqual(try standIn.objects(.github, "statuses").count, 1, "faulted requests change nothing")
    }

    func testEachFaultKindAnswersAsTheForgeWould() throws {
        let kinds: [(ForgeStandInFault.Kind, ForgeStandIn.Forge, Int)] = [
            (.tooManyRequests, .github, 429), (.badGateway, .github, 502), (.serverError, .gitea, 500),
            (.unauthorized, .gitlab, 401), (.tooManyRequests, .gitlab, 429),
        ]
        for (kind, forge, expected) in kinds {
            try standIn.script(.init(kind, forge: forge, retryAfter: 3))
            let path = forge == .gitlab ? "/projects/17/statuses/abc" : statuses
            let answer = try standIn.call(
                forge, "POST", path, json: status.merging(["state": "running"]) { forge == .gitlab ? $1 : $0 })
            XCTAssertEqual(answer.status, expected, "\(kind) on \(forge): \(answer.text)")
            if expected == 429 { XCTAssertEqual(answer.header("Retry-After"), "3", "\(kind) on \(forge)") }
        }
        XCTAssertEqual(
            try standIn.call(.github, "POST", statuses, json: status).status, 201, "each fault was spent once")
    }

    func testAHangingRequestTimesTheClientOutAndTheNextIsAnswered() throws {
        try standIn.script(.init(.hang, method: "POST", seconds: 6))
        let started = Date()
        XCTAssertThrowsError(try standIn.call(.github, "POST", statuses, json: status, timeout: 1.5))
        XCTAssertLessThan(Date().timeIntervalSince(started), 5, "the client gave up before the stand-in answered")
        XCTAssertEqual(try standIn.requests().map(\.fault), ["hang"], "the hung request reached the stand-in")
        XCTAssertEqual(try standIn.call(.github, "POST", statuses, json: status).status, 201)
    }

    func testRateLimitHeadersCountDownAndAnExhaustedLimitRefuses() throws {
        try standIn.setRateLimit(limit: 100, remaining: 2, resetIn: 600)
        let first = try standIn.call(.github, "POST", statuses, json: status)
        XCTAssertEqual(first.header("X-RateLimit-Limit"), "100")
        XCTAssertEqual(first.header("X-RateLimit-Remaining"), "1")
        XCTAssertEqual(first.header("X-RateLimit-Used"), "99")
        let reset = try XCTUnwrap(first.header("X-RateLimit-Reset").flatMap(Int.init))
        XCTAssertEqual(Double(reset), Date().timeIntervalSince1970 + 600, accuracy: 60)
        XCTAssertEqual(try standIn.call(.github, "POST", statuses, json: status).header("X-RateLimit-Remaining"), "0")
        let refused = try standIn.call(.github, "POST", statuses, json: status)
        XCTAssertEqual(refused.status, 403, refused.text)
        XCTAssertTrue(refused.text.contains("API rate limit exceeded"), refused.text)
        XCTAssertEqual(refused.header("X-RateLimit-Remaining"), "0")
        XCTAssertFalse(try XCTUnwrap(standIn.requests().last).valid, "sending past the limit is recorded")
    }
}
