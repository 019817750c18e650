/// One of a cron expression's five fields: the values it allows, and whether it was written starting with `*`
/// (cron's rules for day-of-month versus day-of-week and for daylight-saving changes depend on that).
struct CronField: Sendable, Equatable {
    /// What the field is, with its range and names.
    struct Kind: Sendable, Equatable {
        var name: String
        var range: ClosedRange<Int>
        /// Names accepted for values (`jan`, `mon`), lowercased, mapped to their number.
        var names: [String: Int]
        /// Values that mean the same as another (day-of-week 7 is Sunday, 0).
        var aliases: [Int: Int]

        static let minute = Kind(name: "minute", range: 0...59, names: [:], aliases: [:])
        static let hour = Kind(name: "hour", range: 0...23, names: [:], aliases: [:])
        static let dayOfMonth = Kind(name: "day of month", range: 1...31, names: [:], aliases: [:])
        static let month = Kind(
            name: "month", range: 1...12,
            names: Dictionary(
                uniqueKeysWithValues: [
                    "jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec",
                ]
                .enumerated().map { ($1, $0 + 1) }),
            aliases: [:])
        static let dayOfWeek = Kind(
            name: "day of week", range: 0...7,
            names: Dictionary(
                uniqueKeysWithValues: ["sun", "mon", "tue", "wed", "thu", "fri", "sat"].enumerated().map { ($1, $0) }),
            aliases: [7: 0])
    }

    /// The allowed values, sorted, without duplicates (aliases folded in).
    let values: [Int]
    /// Bit `n` is set when value `n` is allowed.
    let mask: UInt64
    /// The field begins with `*` (`*`, `*/15`): cron calls it unrestricted for the day rule.
    let startsWithStar: Bool

    init(values: Set<Int>, startsWithStar: Bool) {
        self.values = values.sorted()
        self.mask = values.reduce(0) { $0 | (1 << UInt64($1)) }
        self.startsWithStar = startsWithStar
    }

    func contains(_ value: Int) -> Bool { value >= 0 && value < 64 && mask & (1 << UInt64(value)) != 0 }

    /// Parses one field, e.g. `*/15`, `1-5`, `mon-fri`, `0,30`, `10-50/20`. `offset` places errors in the whole
    /// expression.
    static func parse(_ text: Substring, kind: Kind, offset: Int) throws(CronSyntaxError) -> CronField {
        var allowed: Set<Int> = []
        var itemOffset = offset
        for item in text.split(separator: ",", omittingEmptySubsequences: false) {
            defer { itemOffset += item.count + 1 }
            guard !item.isEmpty else {
                throw CronSyntaxError(
                    "the \(kind.name) field has an empty entry in its list: remove the extra ','", offset: itemOffset)
            }
            allowed.formUnion(try parseItem(item, kind: kind, offset: itemOffset))
        }
        let folded = Set(allowed.map { kind.aliases[$0] ?? $0 })
        return CronField(values: folded, startsWithStar: text.hasPrefix("*"))
    }

    private static func parseItem(_ item: Substring, kind: Kind, offset: Int) throws(CronSyntaxError) -> Set<Int> {
        let parts = item.split(separator: "/", maxSplits: 1, omittingEmptySubsequences: false)
        var step = 1
        if parts.count == 2 {
            guard let value = Int(parts[1]), value >= 1 else {
                throw CronSyntaxError(
                    "the \(kind.name) field's step '/\(parts[1])' must be a whole number of at least 1 (as in */15)",
                    offset: offset + parts[0].count + 1)
            }
            guard value <= kind.range.upperBound else {
                throw CronSyntaxError(
                    "the \(kind.name) field's step /\(value) is larger than the field's range "
                        + "\(kind.range.lowerBound)-\(kind.range.upperBound)",
                    offset: offset + parts[0].count + 1)
            }
            step = value
        }
        let base = parts[0]
        let range: ClosedRange<Int>
        if base == "*" {
            range = kind.range.lowerBound...(kind.aliases.isEmpty ? kind.range.upperBound : kind.range.upperBound - 1)
        } else {
            let bounds = base.split(separator: "-", maxSplits: 1, omittingEmptySubsequences: false)
            let low = try value(bounds[0], kind: kind, offset: offset)
            if bounds.count == 2 {
                let high = try value(bounds[1], kind: kind, offset: offset + bounds[0].count + 1)
                guard low <= high else {
                    throw CronSyntaxError(
                        "the \(kind.name) range \(base) goes backwards: write the smaller value first", offset: offset)
                }
                range = low...high
            } else if parts.count == 2 {
                // `5/15` is cron's "from 5 to the end, every 15".
                range = low...kind.range.upperBound
            } else {
                range = low...low
            }
        }
        return Set(stride(from: range.lowerBound, through: range.upperBound, by: step))
    }

    private static func value(_ text: Substring, kind: Kind, offset: Int) throws(CronSyntaxError) -> Int {
        if let number = Int(text), text.allSatisfy(\.isASCII) {
            guard kind.range.contains(number) else {
                throw CronSyntaxError(
                    "\(number) is outside the \(kind.name) field's range "
                        + "\(kind.range.lowerBound)-\(kind.range.upperBound)",
                    offset: offset)
            }
            return number
        }
        if let named = kind.names[text.lowercased()] { return named }
        if text.isEmpty {
            throw CronSyntaxError("the \(kind.name) field is missing a value", offset: offset)
        }
        var message = "'\(text)' is not a valid \(kind.name)"
        if !kind.names.isEmpty {
            let sample = kind.names.sorted { $0.value < $1.value }.prefix(3).map(\.key).joined(separator: ", ")
            message += " (use numbers \(kind.range.lowerBound)-\(kind.range.upperBound) or names such as \(sample))"
        } else {
            message +=
                " (use numbers \(kind.range.lowerBound)-\(kind.range.upperBound), *, ranges a-b, lists a,b "
                + "and steps */n)"
        }
        throw CronSyntaxError(message, offset: offset)
    }
}
