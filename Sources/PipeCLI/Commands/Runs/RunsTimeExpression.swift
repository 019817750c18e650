import Foundation

/// A point in time as people type it for `--since` and `--older`: a day (`2026-11-29`, midnight UTC), a time
/// (`2026-11-29T14:03:12Z`, `2026-11-29 14:03`, `2026-11-29T23:03+09:00`; UTC when no zone is given) or an age
/// counted back from now (`90s`, `30m`, `2h`, `3d`, `1w`, `1d12h`).
///
/// UTC by default because run ids and records are in UTC: the same text names the same runs on every machine.
enum RunsTimeExpression {
    static let expected =
        "a day (2026-11-29), a UTC time (2026-11-29T14:03:12Z) or an age (30m, 2h, 3d, 1w)"

    /// The time `text` names, or `nil` when it is none of the accepted shapes.
    static func parse(_ text: String, now: Date) -> Date? {
        let trimmed = text.trimmingCharacters(in: .whitespaces)
        if let age = age(trimmed) { return now.addingTimeInterval(-age) }
        return absolute(trimmed)
    }

    /// Parses `value` for `option`, or throws a usage error that shows the accepted shapes.
    static func parse(_ value: String, option: String, command: String, now: Date = Date()) throws -> Date {
        guard let date = parse(value, now: now) else {
            throw UsageError(.invalidValue(option: option, value: value, expected: expected), command: command)
        }
        return date
    }

    /// `2h`, `3d`, `1d12h` → seconds; `m` is minutes (months are not a fixed length).
    static func age(_ text: String) -> TimeInterval? {
        let units: [Character: TimeInterval] = ["s": 1, "m": 60, "h": 3_600, "d": 86_400, "w": 604_800]
        guard !text.isEmpty else { return nil }
        var total: TimeInterval = 0
        var digits = ""
        for character in text {
            if character.isASCII && character.isNumber {
                digits.append(character)
            } else if let unit = units[character], let number = Double(digits) {
                total += number * unit
                digits = ""
            } else {
                return nil
            }
        }
        return digits.isEmpty ? total : nil
    }

    private static let pattern = try! NSRegularExpression(
        pattern: #"^(\d{4})-(\d{2})-(\d{2})(?:[T ](\d{2}):(\d{2})(?::(\d{2})(?:\.(\d{1,9}))?)?)?(Z|[+-]\d{2}:?\d{2})?$"#
    )

    /// `yyyy-MM-dd[(T| )HH:mm[:ss[.fff]]][Z|±HH:MM]`.
    static func absolute(_ text: String) -> Date? {
        let range = NSRange(text.startIndex..., in: text)
        guard let match = pattern.firstMatch(in: text, range: range) else { return nil }
        func group(_ index: Int) -> String? {
            guard let range = Range(match.range(at: index), in: text) else { return nil }
            return String(text[range])
        }
        guard let year = group(1).flatMap(Int.init), let month = group(2).flatMap(Int.init),
            let day = group(3).flatMap(Int.init), (1...12).contains(month), (1...31).contains(day)
        else { return nil }
        let hour = group(4).flatMap(Int.init) ?? 0
        let minute = group(5).flatMap(Int.init) ?? 0
        let second = group(6).flatMap(Int.init) ?? 0
        guard hour < 24, minute < 60, second < 61 else { return nil }
        let fraction = group(7).map { Double("0." + $0) ?? 0 } ?? 0
        var offset = 0
        if let zone = group(8), zone != "Z" {
            let digits = zone.dropFirst().filter(\.isNumber)
            guard let hours = Int(digits.prefix(2)), let minutes = Int(digits.suffix(2)) else { return nil }
            offset = (hours * 3_600 + minutes * 60) * (zone.hasPrefix("-") ? -1 : 1)
        }
        var parts = tm()
        parts.tm_year = Int32(year - 1900)
        parts.tm_mon = Int32(month - 1)
        parts.tm_mday = Int32(day)
        parts.tm_hour = Int32(hour)
        parts.tm_min = Int32(minute)
        parts.tm_sec = Int32(second)
        let seconds = timegm(&parts)
        // timegm normalizes 2026-02-31 to March 3rd: a day that does not exist is refused instead.
        guard parts.tm_mday == Int32(day), parts.tm_mon == Int32(month - 1) else { return nil }
        return Date(timeIntervalSince1970: Double(seconds - offset) + fraction)
    }
}
