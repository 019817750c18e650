import CSQLite
import Foundation

/// The current row of a statement being stepped; valid only inside the closure that receives it.
public struct SQLiteRow: StoreRow {
    let statement: OpaquePointer

    /// Whether column `index` (0-based) is `NULL`.
    public func isNull(_ index: Int32) -> Bool { sqlite3_column_type(statement, index) == SQLITE_NULL }

    /// Column `index` as an integer; `nil` for `NULL`.
    public func int64(_ index: Int32) -> Int64? {
        isNull(index) ? nil : sqlite3_column_int64(statement, index)
    }

    /// Column `index` as a floating-point number; `nil` for `NULL`.
    public func double(_ index: Int32) -> Double? {
        isNull(index) ? nil : sqlite3_column_double(statement, index)
    }

    /// The column as UTF-8 text (the byte count is read, so embedded NULs survive).
    public func text(_ index: Int32) -> String? {
        guard !isNull(index), let bytes = sqlite3_column_text(statement, index) else { return nil }
        let count = Int(sqlite3_column_bytes(statement, index))
        return String(decoding: UnsafeBufferPointer(start: bytes, count: count), as: UTF8.self)
    }

    /// Column `index` as bytes; `nil` for `NULL`.
    public func blob(_ index: Int32) -> Data? {
        guard !isNull(index) else { return nil }
        let count = Int(sqlite3_column_bytes(statement, index))
        guard count > 0, let bytes = sqlite3_column_blob(statement, index) else { return Data() }
        return Data(bytes: bytes, count: count)
    }
}
