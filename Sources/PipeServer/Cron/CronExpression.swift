import Foundation

/// A cron schedule: five fields (minute, hour, day of month, month, day of week) or a macro (`@hourly`, `@daily`,
/// `@weekly`, `@monthly`, `@yearly`), evaluated in a named time zone the way cron does.
///
/// The rules a cron user relies on:
/// - when both day of month and day of week are restricted (neither starts with `*`), a day matches when **either**
///   does (`0 0 13 * 5` is every 13th and every Friday); otherwise both must;
/// - a day that does not exist is never matched (`0 0 31 * *` skips 30-day months, `0 0 29 2 *` waits for a leap
///   year), and an expression that can never fire (`0 0 30 2 *`) is refused when read;
/// - daylight-saving changes, as Vixie cron and cronie treat them: a *fixed-time* schedule (neither minute nor
///   hour starts with `*`) whose time falls in the hour that is skipped in spring fires at the moment of the
///   change, and fires only once in the hour that repeats in autumn; a *wildcard* schedule (`*/15 * * * *`,
///   `30 * * * *`) fires at every wall-clock time that exists, so twice in the repeated hour and not at all in the
///   skipped one.
public struct CronExpression: Sendable, Equatable, CustomStringConvertible {
    /// The expression as written.
    public let source: String
    let minute: CronField
    let hour: CronField
    let dayOfMonth: CronField
    let month: CronField
    let dayOfWeek: CronField

    /// The macros and what they stand for.
    public static let macros: [String: String] = [
        "@yearly": "0 0 1 1 *", "@annually": "0 0 1 1 *", "@monthly": "0 0 1 * *", "@weekly": "0 0 * * 0",
        "@daily": "0 0 * * *", "@midnight": "0 0 * * *", "@hourly": "0 * * * *",
    ]

    /// Reads `text`; every mistake names the field and what to write instead.
    public init(_ text: String) throws(CronSyntaxError) {
        source = text
        let trimmed = text.trimmingCharacters(in: .whitespaces)
        var fieldsText = Substring(trimmed)
        var baseOffset = text.distance(from: text.startIndex, to: text.firstIndex { $0 != " " } ?? text.startIndex)
        if trimmed.hasPrefix("@") {
            guard let expansion = Self.macros[trimmed.lowercased()] else {
                throw CronSyntaxError(
                    "unknown macro '\(trimmed)'; use @hourly, @daily, @weekly, @monthly, @yearly, '@every 30s' or "
                        + "five fields such as '0 2 * * *'")
            }
            fieldsText = Substring(expansion)
            baseOffset = 0
        }
        var fields: [(text: Substring, offset: Int)] = []
        var index = fieldsText.startIndex
        while index < fieldsText.endIndex {
            if fieldsText[index] == " " || fieldsText[index] == "\t" {
                index = fieldsText.index(after: index)
                continue
            }
            let start = index
            while index < fieldsText.endIndex, fieldsText[index] != " ", fieldsText[index] != "\t" {
                index = fieldsText.index(after: index)
            }
            fields.append(
                (fieldsText[start..<index], baseOffset + fieldsText.distance(from: fieldsText.startIndex, to: start)))
        }
        guard fields.count == 5 else {
            throw CronSyntaxError(
                "a cron expression has five fields (minute hour day-of-month month day-of-week, e.g. '0 2 * * *'), "
                    + "found \(fields.count)"
                    + (fields.count == 6 ? "; seconds are not supported: drop the first field" : ""))
        }
        minute = try CronField.parse(fields[0].text, kind: .minute, offset: fields[0].offset)
        hour = try CronField.parse(fields[1].text, kind: .hour, offset: fields[1].offset)
        dayOfMonth = try CronField.parse(fields[2].text, kind: .dayOfMonth, offset: fields[2].offset)
        month = try CronField.parse(fields[3].text, kind: .month, offset: fields[3].offset)
        dayOfWeek = try CronField.parse(fields[4].text, kind: .dayOfWeek, offset: fields[4].offset)
        if !dayOfMonth.startsWithStar, dayOfWeek.startsWithStar {
            let possible = month.values.contains { month in
                dayOfMonth.values.contains { $0 <= CivilDate.maximumDays(inMonth: month) }
            }
            guard possible else {
                throw CronSyntaxError(
                    "'\(text)' never fires: none of its months has day \(dayOfMonth.values.first ?? 31) (February has "
                        + "at most 29 days, April, June, September and November 30)", offset: fields[2].offset)
            }
        }
    }

    public var description: String { source }

    /// Neither minute nor hour starts with `*`: a job at fixed times of day (the DST rules differ).
    var isFixedTime: Bool { !minute.startsWithStar && !hour.startsWithStar }

    /// Whether the day matches, with cron's day-of-month / day-of-week rule.
    func matches(_ date: CivilDate) -> Bool {
        guard month.contains(date.month) else { return false }
        let byMonthDay = dayOfMonth.contains(date.day)
        let byWeekDay = dayOfWeek.contains(date.weekday)
        if !dayOfMonth.startsWithStar && !dayOfWeek.startsWithStar { return byMonthDay || byWeekDay }
        return byMonthDay && byWeekDay
    }

    /// The first moment strictly after `date` at which the schedule fires in `timeZone`; `nil` when there is none
    /// within the next 30 years (which a valid expression never hits: 29 February comes at least every 8 years).
    public func nextFire(after date: Date, in timeZone: TimeZone) -> Date? {
        let zone = ZoneOffsets(timeZone)
        let instant = date.timeIntervalSince1970
        let localNow = instant + Double(zone.offset(at: instant))
        var day = Int((localNow / 86_400).rounded(.down)) - 1
        let lastDay = day + 366 * 30
        while day <= lastDay {
            defer { day += 1 }
            let civil = CivilDate(daysSinceEpoch: day)
            guard matches(civil) else { continue }
            // A daylight-saving change moves the clock by two hours at most: a wall time more than three hours
            // before `date`'s cannot come after it, and one more than three hours after the first fire found
            // cannot come before that fire. Only the times in between are turned into instants.
            var best: (instant: Double, wall: Double)?
            scan: for hourValue in hour.values {
                for minuteValue in minute.values {
                    let wall = Double(day * 86_400 + hourValue * 3_600 + minuteValue * 60)
                    if wall < localNow - 3 * 3_600 { continue }
                    if let found = best, wall > found.wall + 3 * 3_600 { break scan }
                    for fire in fires(atWall: wall, zone: zone) where fire > instant {
                        if best == nil || fire < best!.instant { best = (fire, best?.wall ?? wall) }
                    }
                }
            }
            if let best { return Date(timeIntervalSince1970: best.instant) }
        }
        return nil
    }

    /// The instants at which a wall-clock time fires, after the DST rules.
    private func fires(atWall wall: Double, zone: ZoneOffsets) -> [Double] {
        switch zone.resolve(wall: wall) {
        case .unique(let instant): return [instant]
        case .repeated(let first, let second): return isFixedTime ? [first] : [first, second]
        case .skipped(let transition): return isFixedTime ? [transition] : []
        }
    }
}
