import Foundation

/// UTC timestamps in the few shapes Pipe writes: compact for paths and ids, ISO 8601 for records.
public enum UTCTimestamp {
    /// `yyyyMMdd-HHmmss` in UTC, used in run ids and result bundle names.
    public static func compact(_ date: Date) -> String {
        let c = components(date)
        return String(format: "%04d%02d%02d-%02d%02d%02d", c.year, c.month, c.day, c.hour, c.minute, c.second)
    }

    /// `yyyy-MM-ddTHH:mm:ss.SSSZ` in UTC, used in run records and logs.
    public static func iso8601(_ date: Date) -> String {
        let c = components(date)
        let millis = Int((date.timeIntervalSince1970 * 1000).rounded(.down)) % 1000
        return String(
            format: "%04d-%02d-%02dT%02d:%02d:%02d.%03dZ", c.year, c.month, c.day, c.hour, c.minute, c.second,
            (millis + 1000) % 1000)
    }

    /// Parses `yyyyMMdd-HHmmss` (UTC).
    public static func parseCompact(_ text: String) -> Date? {
        let digits = text.replacingOccurrences(of: "-", with: "")
        guard digits.count == 14, digits.allSatisfy(\.isASCII), Int(digits) != nil else { return nil }
        var utc = Calendar(identifier: .gregorian)
        utc.timeZone = TimeZone(identifier: "UTC")!
        let n = Array(digits)
        func number(_ from: Int, _ length: Int) -> Int { Int(String(n[from..<from + length]))! }
        let parts = DateComponents(
            year: number(0, 4), month: number(4, 2), day: number(6, 2), hour: number(8, 2), minute: number(10, 2),
            second: number(12, 2))
        return utc.date(from: parts)
    }

    private static func components(_ date: Date) -> (
        year: Int, month: Int, day: Int, hour: Int, minute: Int, second: Int
    ) {
        var time = time_t(date.timeIntervalSince1970.rounded(.down))
        var broken = tm()
        gmtime_r(&time, &broken)
        return (
            Int(broken.tm_year) + 1900, Int(broken.tm_mon) + 1, Int(broken.tm_mday), Int(broken.tm_hour),
            Int(broken.tm_min), Int(broken.tm_sec)
        )
    }
}
