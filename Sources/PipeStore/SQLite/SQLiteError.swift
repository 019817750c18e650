import CSQLite

/// A failed SQLite call: the result code, SQLite's own message and what Pipe was doing.
public struct SQLiteError: Error, CustomStringConvertible, Equatable {
    /// The primary result code (`SQLITE_BUSY`, `SQLITE_CONSTRAINT`, …).
    public var code: Int32
    /// The extended result code (`SQLITE_CONSTRAINT_CHECK`, `SQLITE_BUSY_SNAPSHOT`, …).
    public var extendedCode: Int32
    /// `sqlite3_errmsg` at the time of the failure.
    public var message: String
    /// What was being done, e.g. the SQL statement or `opening`.
    public var context: String

    /// An error from an (extended) result code; the primary code is its low byte.
    public init(extendedCode: Int32, message: String, context: String) {
        self.code = extendedCode & 0xff
        self.extendedCode = extendedCode
        self.message = message
        self.context = context
    }

    /// `SQLITE_CONSTRAINT_CHECK`: a `CHECK` constraint failed (the C macro is an expression Swift does not import).
    public static let constraintCheck: Int32 = SQLITE_CONSTRAINT | (1 << 8)

    /// Another connection holds a lock this call needed: waiting and trying again can help.
    public var isBusy: Bool { code == SQLITE_BUSY || code == SQLITE_LOCKED }

    /// SQLite's short name for the code, e.g. `database is locked`.
    public var codeDescription: String { String(cString: sqlite3_errstr(extendedCode)) }

    public var description: String {
        let detail = message == codeDescription ? message : "\(message) (\(codeDescription))"
        return "SQLite error \(extendedCode): \(detail), while \(context)"
    }
}
