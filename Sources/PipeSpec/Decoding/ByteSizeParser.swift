/// Sizes in pipeline files (`log-limit: 64MB`, `artifact-limit: 2GiB`): a whole number with an optional unit,
/// KB/MB/GB/TB (powers of 1000) or KiB/MiB/GiB/TiB (powers of 1024), or a plain number of bytes.
public enum ByteSizeParser {
    /// What to tell a user who wrote something else.
    public static let expectation = "a size such as 512KB, 64MB, 2GiB, 1TiB or a number of bytes"

    /// The size in bytes, or `nil` when the text is not a positive size.
    public static func bytes(from text: String) -> Int64? {
        let trimmed = text.filter { $0 != " " }
        let digits = trimmed.prefix { $0.isASCII && $0.isNumber }
        guard !digits.isEmpty, let number = Int64(digits), number > 0 else { return nil }
        let unit = trimmed.dropFirst(digits.count).lowercased()
        let multipliers: [String: Int64] = [
            "": 1, "b": 1, "kb": 1_000, "mb": 1_000_000, "gb": 1_000_000_000, "kib": 1 << 10, "mib": 1 << 20,
            "tb": 1_000_000_000_000, "gib": 1 << 30, "tib": 1 << 40,
        ]
        guard let multiplier = multipliers[unit] else { return nil }
        let (product, overflow) = number.multipliedReportingOverflow(by: multiplier)
        return overflow ? nil : product
    }
}
