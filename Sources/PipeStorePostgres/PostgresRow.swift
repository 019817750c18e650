import PipeStore

/// One row of a query's result, every column as the server's text form.
public struct PostgresRow: StoreRow {
    let values: [String?]

    /// Whether column `index` (0-based) is `NULL`.
    public func isNull(_ index: Int32) -> Bool { text(index) == nil }

    /// Column `index` as text; `nil` for `NULL`.
    public func text(_ index: Int32) -> String? {
        let position = Int(index)
        return position < values.count ? values[position] : nil
    }

    /// Column `index` as an integer; a boolean column reads 1 or 0 (as SQLite's comparisons do); `nil` for `NULL`.
    public func int64(_ index: Int32) -> Int64? {
        switch text(index) {
        case nil: return nil
        case "t": return 1
        case "f": return 0
        case let value?: return Int64(value) ?? Double(value).map { Int64($0) }
        }
    }

    /// Column `index` as a floating-point number; `nil` for `NULL`.
    public func double(_ index: Int32) -> Double? {
        switch text(index) {
        case nil: return nil
        case "Infinity": return .infinity
        case "-Infinity": return -.infinity
        case let value?: return Double(value)
        }
    }
}
