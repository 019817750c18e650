import Foundation
import PipeBasics

/// Times found in Apple's outputs, as the run record writes them (`UTCTimestamp.iso8601`).
enum ISOTimestamp {
    /// `1789396469.289` (seconds since 1970, `get test-results summary`) in the record's form.
    static func fromUnixTime(_ seconds: Double) -> String {
        UTCTimestamp.iso8601(Date(timeIntervalSince1970: seconds))
    }

    /// `2024-06-01T20:06:44.973+0200` (the legacy JSON's `Date`) as seconds since 1970; `nil` when not that shape.
    static func unixTime(fromLegacy text: String) -> Double? {
        let characters = Array(text)
        func number(_ start: Int, _ length: Int) -> Int? {
            guard start + length <= characters.count else { return nil }
            return Int(String(characters[start..<start + length]))
        }
        guard characters.count >= 19, characters[4] == "-", characters[7] == "-", characters[10] == "T",
            let year = number(0, 4), let month = number(5, 2), let day = number(8, 2), let hour = number(11, 2),
            let minute = number(14, 2), let second = number(17, 2)
        else { return nil }
        var index = 19
        var fraction = 0.0
        if index < characters.count, characters[index] == "." {
            let digits = characters[(index + 1)...].prefix { $0.isNumber }
            fraction = Double("0." + String(digits)) ?? 0
            index += 1 + digits.count
        }
        var offset = 0
        if index < characters.count, characters[index] == "+" || characters[index] == "-" {
            let sign = characters[index] == "-" ? -1 : 1
            let zone = characters[(index + 1)...].filter { $0 != ":" }
            guard zone.count == 4, let hours = Int(String(zone.prefix(2))), let minutes = Int(String(zone.suffix(2)))
            else { return nil }
            offset = sign * (hours * 3600 + minutes * 60)
        }
        var parts = tm()
        parts.tm_year = Int32(year - 1900)
        parts.tm_mon = Int32(month - 1)
        parts.tm_mday = Int32(day)
        parts.tm_hour = Int32(hour)
        parts.tm_min = Int32(minute)
        parts.tm_sec = Int32(second)
        return Double(timegm(&parts) - offset) + fraction
    }
}
