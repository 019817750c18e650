/// Reads durations as pipelines and hosts files write them: `90s`, `10m`, `1h`, `1h30m`, `1.5h`, `14d`, or a number
/// of seconds.
public enum DurationParser {
    /// The duration in seconds, or `nil` when the text is not a positive duration.
    public static func seconds(from text: String) -> Double? {
        let trimmed = text.trimmingSpaces
        if trimmed.isEmpty { return nil }
        if let plain = Double(trimmed) { return plain > 0 && plain.isFinite ? plain : nil }
        var total = 0.0
        var number = ""
        var sawUnit = false
        for character in trimmed {
            if character.isASCII, character.isNumber || character == "." {
                number.append(character)
                continue
            }
            let multiplier: Double
            switch character {
            case "s": multiplier = 1
            case "m": multiplier = 60
            case "h": multiplier = 3600
            case "d": multiplier = 86_400
            default: return nil
            }
            guard let value = Double(number), value.isFinite else { return nil }
            total += value * multiplier
            number = ""
            sawUnit = true
        }
        guard number.isEmpty, sawUnit, total > 0 else { return nil }
        return total
    }

    /// What to tell a user who wrote something else.
    static let expectation = "a duration such as 90s, 10m, 1h30m, 14d, or a number of seconds"
}

extension String {
    var trimmingSpaces: String {
        var scalars = Substring(self)
        while let first = scalars.first, first == " " || first == "\t" { scalars = scalars.dropFirst() }
        while let last = scalars.last, last == " " || last == "\t" { scalars = scalars.dropLast() }
        return String(scalars)
    }
}
