import Foundation

/// Sizes for people: `812 B`, `2.0 MB` (powers of 1000, as file managers show them).
public enum ByteCount {
    public static func text(_ bytes: Int64) -> String {
        let units = ["B", "KB", "MB", "GB"]
        var amount = Double(bytes)
        var unit = 0
        while amount >= 1000, unit < units.count - 1 {
            amount /= 1000
            unit += 1
        }
        return unit == 0 ? "\(bytes) B" : String(format: "%.1f", amount) + " " + units[unit]
    }
}
