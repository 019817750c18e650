import CSQLite
import Foundation
import PipeCore

/// The default run store: one SQLite file (`.pipe/pipe.db` in the project folder) shared by every `pipe` process.
///
/// Opened in WAL mode (readers never wait for the writer) with foreign keys on and `synchronous=NORMAL` (a
/// commit survives `kill -9` of any process; a power cut may lose the last commits, never consistency). Every
/// write is one short `BEGIN IMMEDIATE` transaction; a transaction that finds the file locked past the busy
/// timeout is retried with a growing pause for up to `busyRetrySeconds`, so `database is locked` never reaches a
/// user. Opening applies the schema's missing migrations in one transaction and refuses a schema from a newer
/// Pipe. One instance may be used from several threads: calls are serialized by a lock.
public final class SQLiteRunStore: RelationalRunStore, @unchecked Sendable {
    /// The file.
    public let path: String
    let database: SQLiteDatabase
    public let clock: () -> Date
    private let lock = NSLock()

    public var location: String { path }
    public var dialect: SQLDialect { .sqlite }

    /// The schema version this Pipe writes and understands up to.
    public static var supportedSchemaVersion: Int { StoreSchema.currentVersion }

    /// `.pipe/pipe.db` in the project folder.
    public static func defaultLocation(projectDirectory: URL) -> URL {
        projectDirectory.appendingPathComponent(".pipe/pipe.db")
    }

    /// Opens the store at `location` (creating the file and its folder when missing) and brings its schema up to
    /// date.
    ///
    /// - Parameters:
    ///   - clock: the time of the store's own bookkeeping (`updated_at`, interruption times).
    ///   - busyTimeoutMilliseconds: how long one statement waits for another process's lock.
    ///   - busyRetrySeconds: how long a transaction is retried in all before `StoreError.busy`.
    public init(
        location: URL, clock: @escaping () -> Date = Date.init, busyTimeoutMilliseconds: Int32 = 5_000,
        busyRetrySeconds: Double = 30
    ) throws {
        path = location.path
        self.clock = clock
        do {
            try FileManager.default.createDirectory(
                at: location.deletingLastPathComponent(), withIntermediateDirectories: true)
        } catch {
            throw StoreError.invalidInput(
                "could not create the folder of the run store \(path): \(error.localizedDescription); check that "
                    + "this user may write there, or pass another path")
        }
        do {
            database = try SQLiteDatabase(
                path: path, busyTimeoutMilliseconds: busyTimeoutMilliseconds, busyRetrySeconds: busyRetrySeconds)
            try openSchema()
        } catch let error as SQLiteError {
            throw Self.storeError(error, path: location.path, busyRetrySeconds: busyRetrySeconds)
        }
    }

    /// Transactions retried because another process held the lock (for measurements).
    public var busyRetries: Int {
        lock.lock()
        defer { lock.unlock() }
        return database.busyRetries
    }

    /// The schema version of the file (after opening, always `supportedSchemaVersion`).
    public func schemaVersion() throws -> Int {
        try read { db in try self.userVersion(db) }
    }

    // MARK: - Opening

    private func openSchema() throws {
        let db = database
        // A connection setting: it must be on for every connection, outside any transaction.
        try db.execute("PRAGMA foreign_keys = ON")
        // Judge the file before changing anything in it: a foreign database must come out untouched. One read
        // transaction, so the version, the application id and the table count come from the same moment, even
        // while another process is creating the schema.
        let found = try db.transaction(.read) { try identify(db) }
        if found.version == StoreSchema.currentVersion { return try configureJournal(db) }
        try configureJournal(db)
        try db.transaction(.write) {
            let current = try identify(db)
            for migration in StoreSchema.migrations where migration.version > current.version {
                try db.executeScript(migration.sql)
                try db.execute("PRAGMA user_version = \(migration.version)")
            }
            try db.execute("PRAGMA application_id = \(StoreSchema.applicationID)")
        }
    }

    /// The file's schema version; throws when the file is not a Pipe run store or is newer than this Pipe.
    private func identify(_ db: SQLiteDatabase) throws -> (version: Int, applicationID: Int32) {
        let version: Int
        do {
            version = try userVersion(db)
        } catch let error as SQLiteError where error.code == SQLITE_NOTADB {
            throw StoreError.notARunStore(path: path, reason: "it is not an SQLite database")
        }
        let applicationID = Int32(truncatingIfNeeded: try db.integer("PRAGMA application_id") ?? 0)
        if applicationID != StoreSchema.applicationID {
            let objects = try db.integer("SELECT count(*) FROM sqlite_schema") ?? 0
            if version != 0 || objects != 0 || applicationID != 0 {
                let reason =
                    applicationID == 0
                    ? "it is an SQLite database of another program: it has \(objects) tables and indexes but no "
                        + "Pipe application id"
                    : String(format: "its application id is 0x%08x, not Pipe's", UInt32(bitPattern: applicationID))
                throw StoreError.notARunStore(path: path, reason: reason)
            }
        }
        if version > StoreSchema.currentVersion {
            throw StoreError.schemaTooNew(path: path, found: version, supported: StoreSchema.currentVersion)
        }
        return (version, applicationID)
    }

    private func userVersion(_ db: any StoreDatabase) throws -> Int {
        Int(try db.integer("PRAGMA user_version") ?? 0)
    }

    private func configureJournal(_ db: SQLiteDatabase) throws {
        let mode = try db.retryingWhenBusy { try db.text("PRAGMA journal_mode = WAL") }
        guard mode?.lowercased() == "wal" else {
            throw StoreError.invalidInput(
                "the run store \(path) cannot use SQLite's WAL journal (it stayed '\(mode ?? "unknown")'); put it on "
                    + "a local file system")
        }
        try db.execute("PRAGMA synchronous = NORMAL")
    }

    // MARK: - Running requests

    /// Runs `body` in a write transaction (`BEGIN IMMEDIATE`), under the lock, with SQLite's errors turned into
    /// `StoreError`s.
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
        } catch let error as SQLiteError {
            throw storeError(error)
        }
    }

    func storeError(_ error: SQLiteError) -> StoreError {
        Self.storeError(error, path: path, busyRetrySeconds: database.busyRetrySeconds)
    }

    static func storeError(_ error: SQLiteError, path: String, busyRetrySeconds: Double) -> StoreError {
        if error.isBusy { return .busy(path: path, seconds: busyRetrySeconds) }
        if error.code == SQLITE_NOTADB { return .notARunStore(path: path, reason: "it is not an SQLite database") }
        return .database(path: path, error)
    }
}
