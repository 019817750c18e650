import CPQ
import Foundation
import PipeStore

/// One libpq connection: sends every statement with its parameters apart from the SQL text (`PQexecParams`, never
/// spliced in), checks every result in one place, and reconnects when the server went away.
///
/// Statements are written with SQLite's placeholders (`?`, `?1`), which are turned into PostgreSQL's (`$1`)
/// outside quoted text, so the two stores' SQL reads alike. Not thread-safe by itself: its owner serializes calls,
/// as `PostgresRunStore` does with a lock. Results never leave it; rows are handed to closures.
public final class PostgresDatabase: StoreDatabase {
    public var dialect: SQLDialect { .postgresql }
    public let target: PostgresTarget
    /// How long a lost connection is tried again, in all, before a request fails.
    public let reconnectSeconds: Double
    private var connection: OpaquePointer?
    /// Transactions run again because the connection dropped or the server resolved a race (for tests).
    public private(set) var retries = 0

    /// Connects at once (trying for up to `reconnectSeconds`), so a wrong URL or a down server is reported when the
    /// store is opened.
    public init(target: PostgresTarget, reconnectSeconds: Double = 30) throws {
        self.target = target
        self.reconnectSeconds = reconnectSeconds
        try connect(until: Date().addingTimeInterval(reconnectSeconds))
    }

    deinit { close() }

    public func close() {
        if let connection { PQfinish(connection) }
        connection = nil
    }

    // MARK: - Statements

    /// Runs one statement; returns the number of rows it changed.
    @discardableResult
    public func execute(_ sql: String, _ values: [any StoreBindable]) throws -> Int {
        try withResult(sql, values) { result in Int(String(cString: PQcmdTuples(result))) ?? 0 }
    }

    /// Runs a query and maps each row.
    public func query<T>(_ sql: String, _ values: [any StoreBindable], _ map: (any StoreRow) throws -> T) throws
        -> [T]
    {
        try withResult(sql, values) { result in
            let columns = PQnfields(result)
            return try (0..<PQntuples(result)).map { row in
                try map(
                    PostgresRow(
                        values: (0..<columns).map { column in
                            PQgetisnull(result, row, column) == 1
                                ? nil : String(cString: PQgetvalue(result, row, column))
                        }))
            }
        }
    }

    /// The first row of a query, mapped, or `nil` when there is none.
    public func first<T>(_ sql: String, _ values: [any StoreBindable], _ map: (any StoreRow) throws -> T) throws
        -> T?
    {
        try query(sql, values, map).first
    }

    /// Runs one `INSERT … RETURNING column`.
    public func insert(_ sql: String, _ values: [any StoreBindable], returning column: String) throws -> Int64 {
        guard let key = try integer(sql + " RETURNING " + column, values) else {
            throw PostgresError(
                sqlState: "", message: "the server returned no \(column)", context: "running \(Self.abbreviated(sql))")
        }
        return key
    }

    public func isInvalidValue(_ error: any Error) -> Bool { (error as? PostgresError)?.isInvalidValue ?? false }

    /// Runs a script of several statements without parameters (schema migrations).
    public func executeScript(_ sql: String) throws {
        let connection = try connected()
        let result = PQexec(connection, sql)
        defer { PQclear(result) }
        try check(result, "running \(Self.abbreviated(sql))")
    }

    // MARK: - Transactions

    public enum TransactionKind {
        /// One consistent snapshot (`REPEATABLE READ READ ONLY`).
        case read
        /// Writers take the store's one transaction-scoped advisory lock first, so writes run one at a time,
        /// as in SQLite: every check-then-write inside a transaction sees no other writer between its steps.
        case write
    }

    /// The advisory lock key of the store's writers: "PIPE" in ASCII (advisory locks are per database).
    static let writeLockKey: Int64 = 0x5049_5045

    /// Runs `body` in a transaction and commits it. When the connection drops before the commit, or the server
    /// resolves a race by failing the transaction, it is rolled back and run again (reconnecting with a growing
    /// pause, for up to `reconnectSeconds`); `body` must therefore only touch the database and return its result.
    /// A connection lost during the commit is reported, since the commit may or may not have happened.
    public func transaction<T>(_ kind: TransactionKind, _ body: () throws -> T) throws -> T {
        let deadline = Date().addingTimeInterval(reconnectSeconds)
        var pause = 0.05
        while true {
            do {
                return try transactionOnce(kind, body)
            } catch let error as PostgresError where error.isRetryable || (error.isConnectionLost && !committing) {
                guard Date().addingTimeInterval(pause) < deadline else { throw error }
                retries += 1
                Thread.sleep(forTimeInterval: pause * Double.random(in: 0.5...1.5))
                pause = min(pause * 2, 1)
                if error.isConnectionLost { try connect(until: deadline) }
            }
        }
    }

    private var committing = false

    private func transactionOnce<T>(_ kind: TransactionKind, _ body: () throws -> T) throws -> T {
        committing = false
        switch kind {
        case .read: try execute("BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY")
        case .write:
            try execute("BEGIN")
            try execute("SELECT pg_advisory_xact_lock(?)", [Self.writeLockKey])
        }
        do {
            let result = try body()
            committing = true
            try execute("COMMIT")
            committing = false
            return result
        } catch {
            if let connection, PQstatus(connection) == CONNECTION_OK,
                PQtransactionStatus(connection) != PQTRANS_IDLE
            {
                PQclear(PQexec(connection, "ROLLBACK"))
            }
            throw error
        }
    }

    // MARK: - Connecting

    private func connected() throws -> OpaquePointer {
        if let connection, PQstatus(connection) == CONNECTION_OK { return connection }
        throw PostgresError(
            sqlState: "", message: connection.map(Self.connectionMessage) ?? "not connected",
            context: "using the \(target.description)")
    }

    private func connect(until deadline: Date) throws {
        var pause = 0.1
        while true {
            close()
            let keywords = ["dbname", "fallback_application_name"]
            let values = [target.connectionString, "pipe"]
            let opened = withCStrings(keywords) { keywordPointers in
                withCStrings(values) { valuePointers in PQconnectdbParams(keywordPointers, valuePointers, 1) }
            }
            connection = opened
            if let opened, PQstatus(opened) == CONNECTION_OK {
                // The server's notices (an index that already exists, …) are not the user's business.
                PQsetNoticeProcessor(opened, { _, _ in }, nil)
                return
            }
            let message = opened.map(Self.connectionMessage) ?? "out of memory"
            guard Date().addingTimeInterval(pause) < deadline else {
                close()
                throw PostgresError(sqlState: "", message: message, context: "connecting")
            }
            Thread.sleep(forTimeInterval: pause)
            pause = min(pause * 2, 2)
        }
    }

    private static func connectionMessage(_ connection: OpaquePointer) -> String {
        String(cString: PQerrorMessage(connection)).split(whereSeparator: \.isNewline)
            .map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }.joined(separator: "; ")
    }

    // MARK: - The one place results are checked

    private func withResult<T>(_ sql: String, _ values: [any StoreBindable], _ body: (OpaquePointer) throws -> T)
        throws -> T
    {
        let connection = try connected()
        let statement = Self.numberedPlaceholders(sql)
        let texts = values.map { PostgresParameter.text($0.storeValue) }
        let types = values.map { PostgresParameter.type($0.boundType) }
        let result = withOptionalCStrings(texts) { pointers in
            PQexecParams(connection, statement, Int32(values.count), types, pointers, nil, nil, 0)
        }
        defer { PQclear(result) }
        try check(result, "running \(Self.abbreviated(sql))")
        return try body(result!)
    }

    private func check(_ result: OpaquePointer?, _ context: @autoclosure () -> String) throws {
        guard let result else {
            throw PostgresError(
                sqlState: "", message: connection.map(Self.connectionMessage) ?? "no connection", context: context())
        }
        switch PQresultStatus(result) {
        case PGRES_COMMAND_OK, PGRES_TUPLES_OK, PGRES_EMPTY_QUERY: return
        default:
            let field = { (code: UInt8) -> String in
                PQresultErrorField(result, Int32(code)).map { String(cString: $0) } ?? ""
            }
            var message = field(UInt8(ascii: "M"))
            if message.isEmpty { message = String(cString: PQresultErrorMessage(result)) }
            if let connection, PQstatus(connection) != CONNECTION_OK, message.isEmpty {
                message = Self.connectionMessage(connection)
            }
            throw PostgresError(
                sqlState: field(UInt8(ascii: "C")), message: message.trimmingCharacters(in: .whitespacesAndNewlines),
                context: context())
        }
    }

    // MARK: - SQL text

    /// `?` becomes `$1`, `$2`, … in order and `?N` becomes `$N`, outside quoted strings and identifiers.
    static func numberedPlaceholders(_ sql: String) -> String {
        var output = ""
        output.reserveCapacity(sql.utf8.count + 16)
        var next = 0
        var quote: Character?
        var characters = sql.makeIterator()
        var pending = characters.next()
        while let character = pending {
            pending = characters.next()
            if let open = quote {
                output.append(character)
                if character == open { quote = nil }
                continue
            }
            switch character {
            case "'", "\"":
                quote = character
                output.append(character)
            case "?":
                if let digit = pending, digit.isASCII, digit.isNumber {
                    output.append("$")
                } else {
                    next += 1
                    output.append("$\(next)")
                }
            default:
                output.append(character)
            }
        }
        return output
    }

    static func abbreviated(_ sql: String) -> String {
        let line = sql.split(whereSeparator: \.isNewline).map { $0.trimmingCharacters(in: .whitespaces) }
            .joined(separator: " ")
        return "`" + (line.count > 120 ? line.prefix(117) + "..." : line) + "`"
    }
}

/// C strings for libpq's arrays, valid inside `body`; the array ends with a null pointer.
private func withCStrings<R>(_ strings: [String], _ body: ([UnsafePointer<CChar>?]) -> R) -> R {
    withOptionalCStrings(strings.map { Optional($0) }) { body($0 + [nil]) }
}

private func withOptionalCStrings<R>(_ strings: [String?], _ body: ([UnsafePointer<CChar>?]) -> R) -> R {
    let copies = strings.map { $0.map { strdup($0) } ?? nil }
    defer { for copy in copies { free(copy) } }
    return body(copies.map { $0.map { UnsafePointer($0) } })
}

extension PostgresDatabase {
    /// The libpq this process runs with, as `pipe --version` lists it: 150010 is 15.10 (from 10 on, two parts).
    public static var libraryVersion: String {
        let number = Int(PQlibVersion())
        return "\(number / 10_000).\(number % 10_000)"
    }
}
