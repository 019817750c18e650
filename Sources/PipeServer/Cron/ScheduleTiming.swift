import Foundation

/// When a schedule fires: a cron expression in a time zone, or a fixed interval (`@every 30s`).
///
/// Interval slots are whole multiples of the interval since 1970-01-01 UTC, so every controller, before and after a
/// restart, agrees on which slot is which (a slot fires once, whoever was running).
public enum ScheduleTiming: Sendable, Equatable, CustomStringConvertible {
    case cron(CronExpression, TimeZone)
    case every(seconds: Int)

    /// Reads `@every 30s`, `@every 1h30m`, a macro or five cron fields; `timeZone` applies to cron expressions.
    public static func parse(_ text: String, timeZone: TimeZone) throws(CronSyntaxError) -> ScheduleTiming {
        let trimmed = text.trimmingCharacters(in: .whitespaces)
        if trimmed.lowercased().hasPrefix("@every") {
            let rest = trimmed.dropFirst("@every".count).trimmingCharacters(in: .whitespaces)
            guard let seconds = Self.intervalSeconds(rest) else {
                throw CronSyntaxError(
                    "'@every' needs a whole number of seconds, minutes or hours, such as '@every 30s', '@every 5m' "
                        + "or '@every 1h30m'; found '\(rest)'",
                    offset: text.count - rest.count)
            }
            return .every(seconds: seconds)
        }
        return .cron(try CronExpression(text), timeZone)
    }

    /// `30s`, `5m`, `1h30m`, `2h` → seconds; `nil` for anything else, zero or fractions.
    static func intervalSeconds(_ text: String) -> Int? {
        var total = 0
        var digits = ""
        var sawUnit = false
        for character in text {
            if character.isASCII, character.isNumber {
                digits.append(character)
                continue
            }
            let unit: Int
            switch character {
            case "s": unit = 1
            case "m": unit = 60
            case "h": unit = 3_600
            case "d": unit = 86_400
            default: return nil
            }
            guard let value = Int(digits) else { return nil }
            total += value * unit
            digits = ""
            sawUnit = true
        }
        guard digits.isEmpty, sawUnit, total > 0 else { return nil }
        return total
    }

    /// The first slot strictly after `date`.
    public func nextFire(after date: Date) -> Date? {
        switch self {
        case .cron(let expression, let zone): return expression.nextFire(after: date, in: zone)
        case .every(let seconds):
            let interval = Double(seconds)
            let index = (date.timeIntervalSince1970 / interval).rounded(.down) + 1
            return Date(timeIntervalSince1970: index * interval)
        }
    }

    /// The slots in `(after, upTo]`, oldest first, at most `limit` (the newest ones are kept when there are more).
    public func slots(after start: Date, upTo end: Date, limit: Int = 10_000) -> (slots: [Date], total: Int) {
        if case .every(let seconds) = self {
            let interval = Double(seconds)
            let first = (start.timeIntervalSince1970 / interval).rounded(.down) + 1
            let last = (end.timeIntervalSince1970 / interval).rounded(.down)
            guard last >= first else { return ([], 0) }
            let total = Int(last - first) + 1
            let from = max(first, last - Double(limit) + 1)
            return (stride(from: from, through: last, by: 1).map { Date(timeIntervalSince1970: $0 * interval) }, total)
        }
        var found: [Date] = []
        var total = 0
        var cursor = start
        while let next = nextFire(after: cursor), next <= end {
            total += 1
            found.append(next)
            if found.count > limit { found.removeFirst(found.count - limit) }
            cursor = next
            // A minutely schedule over a very long downtime: enough has been counted to act on.
            if total >= 1_000_000 { break }
        }
        return (found, total)
    }

    public var description: String {
        switch self {
        case .cron(let expression, let zone): return "\(expression.source) (\(zone.identifier))"
        case .every(let seconds): return "every \(seconds) s"
        }
    }
}
