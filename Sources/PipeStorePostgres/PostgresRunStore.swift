import Foundation
import PipeCore
import PipeStore

/// The run store on a PostgreSQL server (`--store postgres://…`), for coordinators that outgrow one machine: the
/// same store code as `SQLiteRunStore` (`RelationalRunStore`), over the same tables (`PostgresStoreSchema`),
/// through libpq.
///
/// Writes are short transactions that first take the store's one advisory lock, so they run one at a time as
/// SQLite's do and every check-then-write holds as it does there; reads take a snapshot and never wait. A
/// connection lost before a commit is reconnected and the transaction run again, for up to `reconnectSeconds`.
/// Opening applies the missing migrations in one transaction (PostgreSQL's DDL is transactional) and refuses a
/// database of another program or of a newer Pipe. One instance may be used from several threads: calls are
/// serialized by a lock, over one connection.
public final class PostgresRunStore: RelationalRunStore, @unchecked Sendable {
    public let target: PostgresTarget
    let database: PostgresDatabase
    public let clock: () -> Date
    public var location: String { target.description }
    public var dialect: SQLDialect { .postgresql }
    /// Writes run one at a time under the store's advisory lock, so claims and leases hold across controllers.
    public var admitsSeveralControllers: Bool { true }
    private let lock = NSLock()

    /// The schema version this Pipe writes and understands up to (the SQLite store's, number for number).
    public static var supportedSchemaVersion: Int { PostgresStoreSchema.currentVersion }

    /// Connects to `target` and brings its schema up to date.
    public init(target: PostgresTarget, clock: @escaping () -> Date = Date.init, reconnectSeconds: Double = 30)
        throws
    {
        self.target = target
        self.clock = clock
        do {
            database = try PostgresDatabase(target: target, reconnectSeconds: reconnectSeconds)
        } catch let error as PostgresError {
            throw PostgresStoreError.cannotConnect(
                target: target.description, reason: error.message, seconds: reconnectSeconds)
        }
        try locked { try openSchema() }
    }

    /// Opens the store a user named with `--store`, `PIPE_STORE` or `store:`.
    public convenience init(url: String, clock: @escaping () -> Date = Date.init) throws {
        try self.init(target: PostgresTarget(url), clock: clock)
    }

    /// The schema version of the database (after opening, always `supportedSchemaVersion`).
    public func schemaVersion() throws -> Int {
        try read { db in Int(try db.integer("SELECT version FROM pipe_store WHERE id = 1") ?? 0) }
    }

    /// Transactions run again after a lost connection or a lost race (for tests).
    public var retries: Int { lock.withLock { database.retries } }

    // MARK: - Opening

    private func openSchema() throws {
        let db = database
        let found = try db.transaction(.read) { try identify(db) }
        if found == PostgresStoreSchema.currentVersion { return }
        try db.transaction(.write) {
            var current = try identify(db)
            let hasVersionTable = try db.integer("SELECT (to_regclass('pipe_store') IS NOT NULL)::int") == 1
            if current == 0 && !hasVersionTable {
                try db.executeScript(PostgresStoreSchema.bookkeeping)
                try db.execute(
                    "INSERT INTO pipe_store (id, application, version) VALUES (1, ?, 0)",
                    [PostgresStoreSchema.application])
                current = 0
            }
            for migration in PostgresStoreSchema.migrations where migration.version > current {
                try db.executeScript(migration.sql)
                try db.execute("UPDATE pipe_store SET version = ? WHERE id = 1", [migration.version])
            }
        }
    }

    /// The database's schema version (0 when empty); throws when it holds another program's tables or a newer
    /// schema.
    private func identify(_ db: PostgresDatabase) throws -> Int {
        let hasVersionTable = try db.integer("SELECT (to_regclass('pipe_store') IS NOT NULL)::int") == 1
        guard hasVersionTable else {
            let tables =
                try db.integer(
                    "SELECT count(*) FROM information_schema.tables WHERE table_schema = current_schema()") ?? 0
            if tables > 0 {
                throw PostgresStoreError.notARunStore(
                    target: target.description,
                    reason: "its schema holds \(tables) tables of another program and no pipe_store table")
            }
            return 0
        }
        let row = try db.first("SELECT application, version FROM pipe_store WHERE id = 1") {
            (application: $0.text(0) ?? "", version: $0.int(1) ?? 0)
        }
        guard let row, row.application == PostgresStoreSchema.application else {
            throw PostgresStoreError.notARunStore(
                target: target.description, reason: "its pipe_store table does not name a Pipe run store")
        }
        if row.version > PostgresStoreSchema.currentVersion {
            throw PostgresStoreError.schemaTooNew(
                target: target.description, found: row.version, supported: PostgresStoreSchema.currentVersion)
        }
        return row.version
    }

    // MARK: - Running requests

    /// Runs `body` in a write transaction, under the lock.
    public func write<T>(_ body: (any StoreDatabase) throws -> T) throws -> T {
        try locked { try database.transaction(.write) { try body(database) } }
    }

    /// Runs `body` in a read transaction (one consistent snapshot), under the lock.
    public func read<T>(_ body: (any StoreDatabase) throws -> T) throws -> T {
        try locked { try database.transaction(.read) { try body(database) } }
    }

    private func locked<T>(_ body: () throws -> T) throws -> T {
        lock.lock()
        defer { lock.unlock() }
        do {
            return try body()
        } catch let error as PostgresError where error.isConnectionLost {
            throw PostgresStoreError.cannotConnect(
                target: target.description, reason: error.message, seconds: database.reconnectSeconds)
        } catch let error as PostgresError {
            throw PostgresStoreError.database(target: target.description, error)
        }
    }
}
