import Foundation
import PipeForge
import XCTest

/// Reading answers: done, wait and retry (rate limits, secondary limits, 5xx), or give up with the forge's words.
final class ForgeAnswerReaderTests: XCTestCase {
    private let now = Date(timeIntervalSince1970: 1_800_000_000)
    private let github = ForgeAnswerReader(forge: .github)

    private func answer(_ status: Int, _ headers: [(String, String)] = [], _ body: String = "") -> ForgeResponse {
        ForgeResponse(status: status, headers: headers, body: Array(body.utf8))
    }

    private func wait(_ verdict: ForgeAnswerReader.Verdict) -> Double? {
        if case .retry(let seconds, _) = verdict { return seconds }
        return nil
    }

    func testSuccessIsDone() {
        let ok = answer(201, [], #"{"id":5}"#)
        XCTAssertEqual(github.read(ok, attempt: 1, now: now, random: 0.5), .done(ok))
    }

    func testRetryAfterIsObeyedOnSecondaryLimitsAnd429() {
        let secondary = answer(
            403, [("Retry-After", "30")], #"{"message":"You have exceeded a secondary rate limit."}"#)
        XCTAssertEqual(wait(github.read(secondary, attempt: 1, now: now, random: 0)), 30)
        XCTAssertEqual(wait(github.read(answer(429, [("retry-after", "7")]), attempt: 3, now: now, random: 1)), 7)
        let date = answer(429, [("Retry-After", "Fri, 15 Jan 2027 08:02:00 GMT")])
        XCTAssertEqual(wait(github.read(date, attempt: 1, now: now, random: 0)), 120)
        XCTAssertEqual(wait(github.read(answer(503, [("Retry-After", "2")]), attempt: 1, now: now, random: 0)), 2)
        let absurd = answer(429, [("Retry-After", "99999999")])
        XCTAssertEqual(wait(github.read(absurd, attempt: 1, now: now, random: 0)), 3600, "bounded")
    }

    func testAnExhaustedQuotaWaitsUntilItsReset() {
        let reset = answer(
            403, [("X-RateLimit-Remaining", "0"), ("X-RateLimit-Reset", "1800000120")],
            #"{"message":"API rate limit exceeded"}"#)
        XCTAssertEqual(wait(github.read(reset, attempt: 1, now: now, random: 0)), 121)
        let gitlab = answer(429, [("RateLimit-Remaining", "0"), ("RateLimit-Reset", "1800000010")])
        XCTAssertEqual(wait(ForgeAnswerReader(forge: .gitlab).read(gitlab, attempt: 1, now: now, random: 0)), 11)
        let used = answer(200, [("X-RateLimit-Remaining", "0"), ("X-RateLimit-Reset", "1800000060")])
        XCTAssertEqual(ForgeRateLimit.pauseAfter(used, now: now), 61)
        XCTAssertNil(ForgeRateLimit.pauseAfter(answer(200, [("X-RateLimit-Remaining", "10")]), now: now))
    }

    func testGitHubWritesAreSpacedByASecond() {
        XCTAssertEqual(ForgeRateLimit.spacing(before: ForgeRequest(method: .post, path: "/x"), forge: .github), 1)
        XCTAssertEqual(ForgeRateLimit.spacing(before: ForgeRequest(method: .patch, path: "/x"), forge: .github), 1)
        XCTAssertEqual(ForgeRateLimit.spacing(before: ForgeRequest(method: .get, path: "/x"), forge: .github), 0)
        XCTAssertEqual(ForgeRateLimit.spacing(before: ForgeRequest(method: .put, path: "/x"), forge: .gitlab), 0)
    }

    func testASecondaryLimitWithoutRetryAfterWaitsAtLeastAMinute() {
        let secondary = answer(403, [], #"{"message":"You have exceeded a secondary rate limit. Please wait."}"#)
        XCTAssertEqual(wait(github.read(secondary, attempt: 1, now: now, random: 0)), 60)
        XCTAssertEqual(wait(github.read(secondary, attempt: 8 - 1, now: now, random: 1)), 64)
        let abuse = answer(403, [], #"{"message":"You have triggered an abuse detection mechanism."}"#)
        XCTAssertEqual(wait(github.read(abuse, attempt: 1, now: now, random: 0)), 60)
    }

    func testServerErrorsBackOffWithinTheJitterBounds() {
        for attempt in 1...7 {
            let full = min(300, pow(2, Double(attempt - 1)))
            for random in [0.0, 0.3, 1.0] {
                let seconds = wait(github.read(answer(502), attempt: attempt, now: now, random: random))
                XCTAssertEqual(seconds ?? -1, full * (0.5 + 0.5 * random), accuracy: 1e-9)
                XCTAssertGreaterThanOrEqual(seconds ?? -1, full / 2)
                XCTAssertLessThanOrEqual(seconds ?? .infinity, full)
            }
        }
        XCTAssertEqual(ForgeBackoff().delay(attempt: 30, random: 1), 300, "capped")
        XCTAssertNotNil(wait(ForgeAnswerReader(forge: .gitlab).read(answer(409), attempt: 1, now: now, random: 0)))
        XCTAssertNil(wait(github.read(answer(409), attempt: 1, now: now, random: 0)), "only GitLab's 409 is retried")
    }

    func testOther4xxGiveUpWithTheForgesMessageBoundedAndEscaped() {
        let refused = answer(
            422, [],
            #"{"message":"Validation Failed","errors":[{"resource":"Status","code":"custom","field":"description","message":"description is too long (maximum is 140 characters)"}],"documentation_url":"https://docs.github.com"}"#
        )
        XCTAssertEqual(
            github.read(refused, attempt: 1, now: now, random: 0),
            .giveUp(
                ForgeFailure(
                    forge: .github, status: 422,
                    message: "Validation Failed; description is too long (maximum is 140 characters)")))
        let hostile = answer(404, [], "{\"message\":\"\\u001b[2Jnot found\(String(repeating: "x", count: 5000))\"}")
        guard case .giveUp(let failure) = github.read(hostile, attempt: 1, now: now, random: 0) else {
            return XCTFail("a 404 is final")
        }
        XCTAssertLessThanOrEqual(failure.message.count, 300)
        XCTAssertFalse(failure.message.contains("\u{1B}"))
        XCTAssertTrue(failure.description.hasPrefix("GitHub answered 404: [2Jnot found"), failure.description)
        let gitlab = answer(400, [], #"{"message":{"state":["does not have a valid value"]}}"#)
        XCTAssertEqual(
            ForgeAnswerReader(forge: .gitlab).read(gitlab, attempt: 1, now: now, random: 0),
            .giveUp(ForgeFailure(forge: .gitlab, status: 400, message: "state does not have a valid value")))
        let html = answer(400, [], "<html>\n<b>Bad</b>")
        guard case .giveUp(let page) = github.read(html, attempt: 1, now: now, random: 0) else { return XCTFail() }
        XCTAssertEqual(page.message, "<html> <b>Bad</b>")
        XCTAssertEqual(
            github.read(
                answer(403, [], #"{"message":"Resource not accessible by integration"}"#), attempt: 1, now: now,
                random: 0),
            .giveUp(ForgeFailure(forge: .github, status: 403, message: "Resource not accessible by integration")))
    }

    func testGivesUpAfterTheLastAttempt() {
        guard case .giveUp(let failure) = github.read(answer(502), attempt: 8, now: now, random: 0) else {
            return XCTFail("the eighth attempt is the last")
        }
        XCTAssertEqual(failure.description, "GitHub answered 502 (gave up after 8 attempts)")
        guard case .giveUp(let unreachable) = github.readTransportFailure("connection refused", attempt: 8, random: 0)
        else { return XCTFail() }
        XCTAssertEqual(
            unreachable.description, "GitHub could not be reached: connection refused (gave up after 8 attempts)")
    }

    /// The whole loop with an injected clock: a 502, a secondary limit, then success, in milliseconds.
    func testTheSenderWaitsAsToldOnAnInjectedClock() {
        let clock = ForgeFixtures.ManualClock(now)
        let sender = ForgeRetryingSender(reader: github, clock: clock, random: { 1 })
        var answers = [
            answer(502), answer(403, [("Retry-After", "45")], #"{"message":"secondary rate limit"}"#),
            answer(201, [], #"{"id":77}"#),
        ]
        struct Dropped: Error {}
        var sent = 0
        let started = Date()
        let result = sender.send(ForgeRequest(method: .post, path: "/x")) { _ in
            sent += 1
            if sent == 2 { throw Dropped() }
            return answers.removeFirst()
        }
        XCTAssertEqual(try result.get().status, 201)
        XCTAssertEqual(clock.slept, [1, 2, 45])
        XCTAssertEqual(sent, 4)
        XCTAssertLessThan(Date().timeIntervalSince(started), 1)
        let refused = sender.send(ForgeRequest(method: .post, path: "/x")) { _ in self.answer(401) }
        XCTAssertEqual(refused, .failure(ForgeFailure(forge: .github, status: 401, message: "")))
    }
}
