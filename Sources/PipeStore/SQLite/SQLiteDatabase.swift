import CSQLite
import Foundation

/// One SQLite connection: owns the `sqlite3` handle, prepares and caches statements, and checks every result
/// code in one place (`check`).
///
/// Not thread-safe by itself (opened `NOMUTEX`): its owner serializes calls, as `SQLiteRunStore` does with a
/// lock. Statements never leave it; rows are handed to closures.
public final class SQLiteDatabase: StoreDatabase {
    public var dialect: SQLDialect { .sqlite }

    /// The file, as given.
    public let path: String
    /// How long a write waits for another connection's lock before the transaction is retried.
    public let busyTimeoutMilliseconds: Int32
    /// How long `transaction` keeps retrying a transaction that found the database busy, in total.
    public let busyRetrySeconds: Double

    private var handle: OpaquePointer?
    private var statements: [String: SQLiteStatement] = [:]
    /// Transactions retried because the database was busy, since opening (for measurements and tests).
    public private(set) var busyRetries = 0

    /// Opens (creating when missing) the database file at `path`.
    public init(path: String, busyTimeoutMilliseconds: Int32 = 5_000, busyRetrySeconds: Double = 30) throws {
        self.path = path
        self.busyTimeoutMilliseconds = busyTimeoutMilliseconds
        self.busyRetrySeconds = busyRetrySeconds
        let flags = SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_NOMUTEX
        // SQLite returns a handle even when opening fails (except without memory): it holds the message.
        let code = sqlite3_open_v2(path, &handle, flags, nil)
        guard let opened = handle else {
            throw SQLiteError(extendedCode: code, message: "out of memory", context: "opening \(path)")
        }
        do {
            try check(code, "opening \(path)")
        } catch {
            close()
            throw error
        }
        try check(sqlite3_extended_result_codes(opened, 1), "enabling extended result codes")
        try check(sqlite3_busy_timeout(opened, busyTimeoutMilliseconds), "setting the busy timeout")
    }

    deinit { close() }

    /// Finalizes every statement and closes the connection; later calls fail.
    public func close() {
        for statement in statements.values { sqlite3_finalize(statement.pointer) }
        statements = [:]
        if let handle { sqlite3_close_v2(handle) }
        handle = nil
    }

    // MARK: - Statements

    /// Runs one statement to its end; returns the number of rows it changed.
    @discardableResult
    public func execute(_ sql: String, _ values: [any StoreBindable] = []) throws -> Int {
        let db = try connection()
        try withStatement(sql, values) { statement in
            while try step(statement) {}
        }
        return Int(sqlite3_changes(db))
    }

    /// Runs a query and maps each row.
    public func query<T>(_ sql: String, _ values: [any StoreBindable] = [], _ map: (any StoreRow) throws -> T) throws
        -> [T]
    {
        try withStatement(sql, values) { statement in
            var rows: [T] = []
            while try step(statement) { rows.append(try map(SQLiteRow(statement: statement.pointer))) }
            return rows
        }
    }

    /// The first row of a query, mapped, or `nil` when there is none.
    public func first<T>(_ sql: String, _ values: [any StoreBindable] = [], _ map: (any StoreRow) throws -> T) throws
        -> T?
    {
        try withStatement(sql, values) { statement in
            try step(statement) ? try map(SQLiteRow(statement: statement.pointer)) : nil
        }
    }

    /// The first column of the first row as an integer; `nil` without a row or for `NULL`.
    public func integer(_ sql: String, _ values: [any StoreBindable] = []) throws -> Int64? {
        try first(sql, values) { $0.int64(0) } ?? nil
    }

    /// The first column of the first row as text; `nil` without a row or for `NULL`.
    public func text(_ sql: String, _ values: [any StoreBindable] = []) throws -> String? {
        try first(sql, values) { $0.text(0) } ?? nil
    }

    /// Runs a script of several statements without parameters (schema migrations).
    public func executeScript(_ sql: String) throws {
        let db = try connection()
        try check(sqlite3_exec(db, sql, nil, nil, nil), "running \(abbreviated(sql))")
    }

    /// Runs one `INSERT`; the new row's key is its row id (`column` is an `INTEGER PRIMARY KEY`, the row id's alias).
    public func insert(_ sql: String, _ values: [any StoreBindable], returning column: String) throws -> Int64 {
        try execute(sql, values)
        return lastInsertRowID
    }

    public func isInvalidValue(_ error: any Error) -> Bool {
        (error as? SQLiteError)?.extendedCode == SQLiteError.constraintCheck
    }

    /// The row id of the last row inserted on this connection.
    public var lastInsertRowID: Int64 {
        guard let handle else { return 0 }
        return sqlite3_last_insert_rowid(handle)
    }

    // MARK: - Transactions

    /// How a transaction takes its locks.
    public enum TransactionKind {
        /// `BEGIN`: reads see one consistent snapshot.
        case read
        /// `BEGIN IMMEDIATE`: takes the write lock at once, so the transaction never has to upgrade a read
        /// lock (which fails at once with `SQLITE_BUSY` when another writer went first).
        case write
    }

    /// Runs `body` in a transaction and commits it. When the database is busy or locked (another process holds
    /// the write lock past the busy timeout, a checkpoint or recovery runs), the whole transaction is rolled back
    /// and run again after a short, growing, jittered pause, for up to `busyRetrySeconds` in all; `body` must
    /// therefore only touch the database and return its result.
    public func transaction<T>(_ kind: TransactionKind, _ body: () throws -> T) throws -> T {
        try retryingWhenBusy { try transactionOnce(kind, body) }
    }

    /// Runs `body` again while it fails because the database is busy (see `transaction`); also for connection
    /// settings such as `PRAGMA journal_mode`, which take a lock outside any transaction.
    public func retryingWhenBusy<T>(_ body: () throws -> T) throws -> T {
        let started = Date()
        var pause = 0.002
        while true {
            do {
                return try body()
            } catch let error as SQLiteError where error.isBusy {
                guard Date().timeIntervalSince(started) + pause < busyRetrySeconds else { throw error }
                busyRetries += 1
                Thread.sleep(forTimeInterval: pause * Double.random(in: 0.5...1.5))
                pause = min(pause * 2, 0.25)
            }
        }
    }

    private func transactionOnce<T>(_ kind: TransactionKind, _ body: () throws -> T) throws -> T {
        let db = try connection()
        precondition(sqlite3_get_autocommit(db) != 0, "SQLiteDatabase transactions do not nest")
        try execute(kind == .write ? "BEGIN IMMEDIATE" : "BEGIN")
        do {
            let result = try body()
            try execute("COMMIT")
            return result
        } catch {
            // An I/O or disk-full error may already have rolled the transaction back.
            if sqlite3_get_autocommit(db) == 0 { _ = sqlite3_exec(db, "ROLLBACK", nil, nil, nil) }
            throw error
        }
    }

    // MARK: - The one place return codes are checked

    private func check(_ code: Int32, _ context: @autoclosure () -> String) throws {
        guard code != SQLITE_OK else { return }
        let message = handle.map { String(cString: sqlite3_errmsg($0)) } ?? String(cString: sqlite3_errstr(code))
        // With extended result codes on, most calls already return the extended code; others leave it in the handle.
        let extended = handle.map { sqlite3_extended_errcode($0) } ?? code
        throw SQLiteError(
            extendedCode: code & 0xff == code && extended & 0xff == code ? extended : code, message: message,
            context: context())
    }

    /// Steps once: `true` with a row, `false` when done.
    private func step(_ statement: SQLiteStatement) throws -> Bool {
        switch sqlite3_step(statement.pointer) {
        case SQLITE_ROW: return true
        case SQLITE_DONE: return false
        case let code: try check(code, "running \(abbreviated(statement.sql))")
        }
        return false
    }

    private func connection() throws -> OpaquePointer {
        guard let handle else {
            throw SQLiteError(extendedCode: SQLITE_MISUSE, message: "the database is closed", context: "using \(path)")
        }
        return handle
    }

    private func withStatement<T>(_ sql: String, _ values: [any StoreBindable], _ body: (SQLiteStatement) throws -> T)
        throws -> T
    {
        let statement = try prepared(sql)
        // Resetting at once ends the statement's read of the database, so no lock or snapshot outlives the call.
        defer {
            sqlite3_reset(statement.pointer)
            sqlite3_clear_bindings(statement.pointer)
        }
        try bind(values, to: statement)
        return try body(statement)
    }

    private func prepared(_ sql: String) throws -> SQLiteStatement {
        if let cached = statements[sql] { return cached }
        let db = try connection()
        var pointer: OpaquePointer?
        try check(sqlite3_prepare_v2(db, sql, -1, &pointer, nil), "preparing \(abbreviated(sql))")
        guard let pointer else {
            throw SQLiteError(extendedCode: SQLITE_MISUSE, message: "empty statement", context: "preparing \(sql)")
        }
        let statement = SQLiteStatement(pointer: pointer, sql: sql)
        statements[sql] = statement
        return statement
    }

    private func bind(_ values: [any StoreBindable], to statement: SQLiteStatement) throws {
        let expected = Int(sqlite3_bind_parameter_count(statement.pointer))
        guard expected == values.count else {
            throw SQLiteError(
                extendedCode: SQLITE_RANGE, message: "\(values.count) values for \(expected) parameters",
                context: "binding \(abbreviated(statement.sql))")
        }
        for (offset, value) in values.enumerated() {
            let index = Int32(offset + 1)
            let code: Int32
            switch value.storeValue {
            case .null:
                code = sqlite3_bind_null(statement.pointer, index)
            case .integer(let number):
                code = sqlite3_bind_int64(statement.pointer, index, number)
            case .real(let number):
                code = sqlite3_bind_double(statement.pointer, index, number)
            case .text(let text):
                code = sqlite3_bind_text(
                    statement.pointer, index, text, Int32(text.utf8.count), pipe_sqlite_transient())
            case .blob(let data):
                code = data.withUnsafeBytes {
                    sqlite3_bind_blob(
                        statement.pointer, index, $0.baseAddress, Int32($0.count), pipe_sqlite_transient())
                }
            }
            try check(code, "binding parameter \(index) of \(abbreviated(statement.sql))")
        }
    }

    private func abbreviated(_ sql: String) -> String {
        let line = sql.split(whereSeparator: \.isNewline).map { $0.trimmingCharacters(in: .whitespaces) }
            .joined(separator: " ")
        return "`" + (line.count > 120 ? line.prefix(117) + "..." : line) + "`"
    }
}
