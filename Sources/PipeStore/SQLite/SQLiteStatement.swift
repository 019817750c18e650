import CSQLite

/// A prepared statement, owned and cached by its `SQLiteDatabase`, which finalizes it before closing.
///
/// It never leaves the database: callers see only `SQLiteRow`s inside closures, so no statement can outlive
/// the connection it belongs to.
final class SQLiteStatement {
    let pointer: OpaquePointer
    let sql: String

    init(pointer: OpaquePointer, sql: String) {
        self.pointer = pointer
        self.sql = sql
    }
}
