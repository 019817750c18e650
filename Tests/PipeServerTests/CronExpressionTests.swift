import Foundation
import PipeServer
import XCTest

/// Cron evaluation against explicit times: every expectation is a moment written out in UTC.
final class CronExpressionTests: XCTestCase {
    private let utc = TimeZone(identifier: "UTC")!
    private let newYork = TimeZone(identifier: "America/New_York")!
    private let paris = TimeZone(identifier: "Europe/Paris")!

    private func at(_ text: String, file: StaticString = #filePath, line: UInt = #line) -> Date {
        guard let date = ISO8601DateFormatter().date(from: text) else {
            XCTFail("bad test time \(text)", file: file, line: line)
            return Date(timeIntervalSince1970: 0)
        }
        return date
    }

    /// The next `count` fire times after `start`, as UTC text.
    private func fires(_ expression: String, after start: String, in zone: TimeZone? = nil, count: Int = 1) throws
        -> [String]
    {
        let cron = try CronExpression(expression)
        var cursor = at(start)
        var result: [String] = []
        let formatter = ISO8601DateFormatter()
        for _ in 0..<count {
            guard let next = cron.nextFire(after: cursor, in: zone ?? utc) else { break }
            result.append(formatter.string(from: next))
            cursor = next
        }
        return result
    }

    // MARK: Fields

    func testStepsRangesAndLists() throws {
        XCTAssertEqual(
            try fires("*/15 * * * *", after: "2026-05-04T10:07:00Z", count: 3),
            ["2026-05-04T10:15:00Z", "2026-05-04T10:30:00Z", "2026-05-04T10:45:00Z"])
        // 9 to 17 every 4 hours on weekdays: 9, 13, 17; Saturday 9 May and Sunday 10 May are skipped.
        XCTAssertEqual(
            try fires("0 9-17/4 * * 1-5", after: "2026-05-08T12:00:00Z", count: 4),
            ["2026-05-08T13:00:00Z", "2026-05-08T17:00:00Z", "2026-05-11T09:00:00Z", "2026-05-11T13:00:00Z"])
        XCTAssertEqual(
            try fires("5,35 1,2 * * *", after: "2026-05-04T00:00:00Z", count: 5),
            [
                "2026-05-04T01:05:00Z", "2026-05-04T01:35:00Z", "2026-05-04T02:05:00Z", "2026-05-04T02:35:00Z",
                "2026-05-05T01:05:00Z",
            ])
        // `10/20` is "from 10, every 20": 10, 30, 50.
        XCTAssertEqual(
            try fires("10/20 3 * * *", after: "2026-05-04T00:00:00Z", count: 3),
            ["2026-05-04T03:10:00Z", "2026-05-04T03:30:00Z", "2026-05-04T03:50:00Z"])
    }

    func testMonthAndDayNamesAndSundayAsSeven() throws {
        // 1 July 2026 is a Wednesday; the first weekday of January 2027 is Friday 1 January.
        XCTAssertEqual(
            try fires("0 6 * jan,JUL mon-fri", after: "2026-06-30T00:00:00Z", count: 2),
            ["2026-07-01T06:00:00Z", "2026-07-02T06:00:00Z"])
        // 7 and 0 both mean Sunday: 3 May 2026 is a Sunday.
        XCTAssertEqual(try fires("0 0 * * 7", after: "2026-04-28T00:00:00Z"), ["2026-05-03T00:00:00Z"])
        XCTAssertEqual(try fires("0 0 * * 0", after: "2026-04-28T00:00:00Z"), ["2026-05-03T00:00:00Z"])
        XCTAssertEqual(try fires("0 0 * * sun", after: "2026-04-28T00:00:00Z"), ["2026-05-03T00:00:00Z"])
    }

    func testMacros() throws {
        XCTAssertEqual(try fires("@hourly", after: "2026-05-04T10:07:00Z"), ["2026-05-04T11:00:00Z"])
        XCTAssertEqual(try fires("@daily", after: "2026-05-04T10:07:00Z"), ["2026-05-05T00:00:00Z"])
        // Weekly is Sunday midnight: 10 May 2026 is a Sunday.
        XCTAssertEqual(try fires("@weekly", after: "2026-05-04T10:07:00Z"), ["2026-05-10T00:00:00Z"])
        XCTAssertEqual(try fires("@monthly", after: "2026-05-04T10:07:00Z"), ["2026-06-01T00:00:00Z"])
        XCTAssertEqual(try fires("@yearly", after: "2026-05-04T10:07:00Z"), ["2027-01-01T00:00:00Z"])
    }

    func testStrictlyAfterTheGivenMoment() throws {
        XCTAssertEqual(try fires("0 2 * * *", after: "2026-05-04T02:00:00Z"), ["2026-05-05T02:00:00Z"])
        XCTAssertEqual(try fires("0 2 * * *", after: "2026-05-04T01:59:59Z"), ["2026-05-04T02:00:00Z"])
    }

    // MARK: Days that exist only sometimes

    func testThe31stSkipsShorterMonths() throws {
        XCTAssertEqual(
            try fires("0 0 31 * *", after: "2026-03-31T00:00:00Z", count: 3),
            ["2026-05-31T00:00:00Z", "2026-07-31T00:00:00Z", "2026-08-31T00:00:00Z"])
    }

    func testTwentyNinthOfFebruaryWaitsForALeapYear() throws {
        XCTAssertEqual(
            try fires("0 12 29 2 *", after: "2026-01-01T00:00:00Z", count: 2),
            ["2028-02-29T12:00:00Z", "2032-02-29T12:00:00Z"])
        // 2100 is not a leap year: from 2097, the next 29 February is in 2104.
        XCTAssertEqual(try fires("0 0 29 2 *", after: "2097-01-01T00:00:00Z"), ["2104-02-29T00:00:00Z"])
    }

    // MARK: Day of month versus day of week

    func testBothDayFieldsRestrictedMatchEither() throws {
        // Every 13th and every Friday: Friday 6 February 2026 comes before the 13th (itself a Friday), then Friday 20.
        XCTAssertEqual(
            try fires("0 0 13 * 5", after: "2026-02-01T00:00:00Z", count: 3),
            ["2026-02-06T00:00:00Z", "2026-02-13T00:00:00Z", "2026-02-20T00:00:00Z"])
        XCTAssertEqual(
            try fires("0 0 1,15 * mon", after: "2026-06-01T00:00:00Z", count: 4),
            ["2026-06-08T00:00:00Z", "2026-06-15T00:00:00Z", "2026-06-22T00:00:00Z", "2026-06-29T00:00:00Z"])
    }

    func testADayFieldStartingWithStarMeansBothMustMatch() throws {
        // `*/2` days (1st, 3rd, …) that are Mondays: 1 June 2026 is a Monday; 15 and 29 June too.
        XCTAssertEqual(
            try fires("0 0 */2 * 1", after: "2026-05-31T00:00:00Z", count: 3),
            ["2026-06-01T00:00:00Z", "2026-06-15T00:00:00Z", "2026-06-29T00:00:00Z"])
        XCTAssertEqual(try fires("0 0 13 * *", after: "2026-02-01T00:00:00Z"), ["2026-02-13T00:00:00Z"])
        XCTAssertEqual(try fires("0 0 * * 5", after: "2026-02-01T00:00:00Z"), ["2026-02-06T00:00:00Z"])
    }

    // MARK: Time zones and daylight saving

    func testNamedTimeZones() throws {
        XCTAssertEqual(
            try fires("0 9 * * *", after: "2026-05-04T00:00:00Z", in: TimeZone(identifier: "Asia/Kolkata")!),
            ["2026-05-04T03:30:00Z"])
        XCTAssertEqual(try fires("0 2 * * *", after: "2026-01-10T00:00:00Z", in: paris), ["2026-01-10T01:00:00Z"])
        XCTAssertEqual(try fires("0 2 * * *", after: "2026-07-10T00:00:00Z", in: paris), ["2026-07-11T00:00:00Z"])
    }

    func testSpringForwardFixedTimeFiresAtTheChange() throws {
        // New York, 8 March 2026: 02:00 EST becomes 03:00 EDT (07:00 UTC); 02:30 never happens that day.
        XCTAssertEqual(
            try fires("30 2 * * *", after: "2026-03-07T12:00:00Z", in: newYork, count: 3),
            ["2026-03-08T07:00:00Z", "2026-03-09T06:30:00Z", "2026-03-10T06:30:00Z"])
        // Paris, 29 March 2026: 02:00 CET becomes 03:00 CEST (01:00 UTC).
        XCTAssertEqual(
            try fires("0 2 * * *", after: "2026-03-28T12:00:00Z", in: paris, count: 2),
            ["2026-03-29T01:00:00Z", "2026-03-30T00:00:00Z"])
    }

    func testSpringForwardWildcardSkipsTheMissingHour() throws {
        // Every half hour: 01:30 EST (06:30Z), then 03:00 EDT (07:00Z): 02:00 and 02:30 do not exist.
        XCTAssertEqual(
            try fires("*/30 * * * *", after: "2026-03-08T06:15:00Z", in: newYork, count: 3),
            ["2026-03-08T06:30:00Z", "2026-03-08T07:00:00Z", "2026-03-08T07:30:00Z"])
        // At :30 of every hour: 01:30 EST, then 03:30 EDT; nothing at the change itself.
        XCTAssertEqual(
            try fires("30 * * * *", after: "2026-03-08T06:00:00Z", in: newYork, count: 2),
            ["2026-03-08T06:30:00Z", "2026-03-08T07:30:00Z"])
    }

    func testFallBackFixedTimeFiresOnce() throws {
        // New York, 1 November 2026: 02:00 EDT becomes 01:00 EST; 01:30 happens at 05:30Z and again at 06:30Z.
        XCTAssertEqual(
            try fires("30 1 * * *", after: "2026-11-01T04:00:00Z", in: newYork, count: 2),
            ["2026-11-01T05:30:00Z", "2026-11-02T06:30:00Z"])
    }

    func testFallBackWildcardFiresInBothPasses() throws {
        XCTAssertEqual(
            try fires("*/30 * * * *", after: "2026-11-01T05:00:00Z", in: newYork, count: 4),
            ["2026-11-01T05:30:00Z", "2026-11-01T06:00:00Z", "2026-11-01T06:30:00Z", "2026-11-01T07:00:00Z"])
        // A wildcard hour with a fixed minute is a wildcard schedule too: 01:15 EDT and 01:15 EST.
        XCTAssertEqual(
            try fires("15 * * * *", after: "2026-11-01T05:00:00Z", in: newYork, count: 3),
            ["2026-11-01T05:15:00Z", "2026-11-01T06:15:00Z", "2026-11-01T07:15:00Z"])
    }

    // MARK: Intervals

    func testEveryIntervalSlotsAreMultiplesSinceTheEpoch() throws {
        let timing = try ScheduleTiming.parse("@every 30s", timeZone: utc)
        XCTAssertEqual(timing, .every(seconds: 30))
        XCTAssertEqual(timing.nextFire(after: at("2026-05-04T10:00:10Z")), at("2026-05-04T10:00:30Z"))
        XCTAssertEqual(timing.nextFire(after: at("2026-05-04T10:00:30Z")), at("2026-05-04T10:01:00Z"))
        XCTAssertEqual(try ScheduleTiming.parse("@every 1h30m", timeZone: utc), .every(seconds: 5_400))
        let slots = timing.slots(after: at("2026-05-04T10:00:00Z"), upTo: at("2026-05-04T10:05:00Z"), limit: 2)
        XCTAssertEqual(slots.total, 10)
        XCTAssertEqual(slots.slots, [at("2026-05-04T10:04:30Z"), at("2026-05-04T10:05:00Z")])
    }

    func testCronSlotsCountAndKeepTheNewest() throws {
        let timing = try ScheduleTiming.parse("0 * * * *", timeZone: utc)
        let slots = timing.slots(after: at("2026-05-04T10:00:00Z"), upTo: at("2026-05-04T15:30:00Z"), limit: 1)
        XCTAssertEqual(slots.total, 5)
        XCTAssertEqual(slots.slots, [at("2026-05-04T15:00:00Z")])
    }

    // MARK: Mistakes

    func testMistakesSayWhatAndWhere() {
        func problem(_ text: String) -> CronSyntaxError? {
            do {
                _ = try ScheduleTiming.parse(text, timeZone: utc)
                return nil
            } catch { return error }
        }
        XCTAssertEqual(problem("0 2 * *")?.message.contains("five fields"), true)
        XCTAssertEqual(problem("0 0 2 * * *")?.message.contains("seconds are not supported"), true)
        XCTAssertEqual(problem("60 * * * *")?.message, "60 is outside the minute field's range 0-59")
        XCTAssertEqual(problem("0 25 * * *")?.offset, 2)
        XCTAssertEqual(problem("0 0 * * fry")?.offset, 8)
        XCTAssertEqual(problem("0 0 * * fry")?.message.contains("not a valid day of week"), true)
        XCTAssertEqual(problem("0 17-9 * * *")?.message.contains("goes backwards"), true)
        XCTAssertEqual(problem("*/0 * * * *")?.message.contains("at least 1"), true)
        XCTAssertEqual(problem("0 1,,2 * * *")?.message.contains("empty entry"), true)
        XCTAssertEqual(problem("0 0 30 2 *")?.message.contains("never fires"), true)
        XCTAssertEqual(problem("0 0 31 4,6 *")?.message.contains("never fires"), true)
        XCTAssertNil(problem("0 0 31 4,7 *"))
        XCTAssertEqual(problem("@reboot")?.message.contains("unknown macro"), true)
        XCTAssertEqual(problem("@every 0s")?.message.contains("@every"), true)
        XCTAssertEqual(problem("@every 1.5m")?.message.contains("whole number"), true)
        // February 30 with a restricted weekday can still fire (on the weekdays): cron accepts it.
        XCTAssertNil(problem("0 0 30 2 1"))
    }
}
