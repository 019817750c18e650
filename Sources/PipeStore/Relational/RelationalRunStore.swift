import Foundation
import PipeCore

/// A run store over SQL tables: every store protocol (`RunStore`, `RunQueue`, `HostLeaseStore`, `AuditLogStore`,
/// `ForgeStore`, `ReleaseBuildStore`) is implemented once, in this protocol's extensions, over a `StoreDatabase`. A backend
/// (`SQLiteRunStore`, `PostgresRunStore`) only opens its database, brings the schema up to date and runs
/// transactions; where its SQL differs the shared code asks `dialect`.
public protocol RelationalRunStore: RunStore, RunQueue, HostLeaseStore, AuditLogStore, ForgeStore,
    ControllerRegistry, ReleaseBuildStore, RequestLedger
{
    /// Where the store is, for messages: the file's path or the server and database.
    var location: String { get }
    /// The time of the store's own bookkeeping (`updated_at`, interruption times).
    var clock: () -> Date { get }
    var dialect: SQLDialect { get }

    /// Runs `body` in a write transaction; writes run one at a time, so every check-then-write in `body` holds.
    /// `body` may run more than once (a busy file, a lost connection), so it must only touch the database.
    func write<T>(_ body: (any StoreDatabase) throws -> T) throws -> T

    /// Runs `body` in a read transaction: one consistent snapshot.
    func read<T>(_ body: (any StoreDatabase) throws -> T) throws -> T
}

// MARK: - Shared steps

extension RelationalRunStore {
    /// The status of a run that may still be written; refuses unknown and interrupted runs.
    @discardableResult
    func requireWritableRun(_ db: any StoreDatabase, _ runID: String) throws -> RunStatus {
        let status = try runStatus(db, runID)
        if status == .interrupted { throw StoreError.runInterrupted(runID) }
        return status
    }

    func runStatus(_ db: any StoreDatabase, _ runID: String) throws -> RunStatus {
        guard let raw = try db.text("SELECT status FROM runs WHERE id = ?", [runID]) else {
            throw StoreError.runNotFound(runID)
        }
        return try decode(RunStatus.self, raw, "the status of run \(runID)")
    }

    func layerID(_ db: any StoreDatabase, _ runID: String, _ layer: String) throws -> Int64 {
        if let id = try db.integer("SELECT id FROM layers WHERE run_id = ? AND name = ?", [runID, layer]) {
            return id
        }
        let known = try db.query("SELECT name FROM layers WHERE run_id = ? ORDER BY position", [runID]) { $0.text(0) }
        throw StoreError.layerNotFound(runID: runID, layer: layer, known: known.compactMap { $0 })
    }

    func attemptID(_ db: any StoreDatabase, layerID: Int64, number: Int) throws -> Int64? {
        try db.integer("SELECT id FROM attempts WHERE layer_id = ? AND number = ?", [layerID, number])
    }

    /// Notes a write to the run: the last sign of life of its owner, should it die.
    func touch(_ db: any StoreDatabase, _ runID: String) throws {
        try db.execute("UPDATE runs SET updated_at = ? WHERE id = ?", [now(), runID])
    }

    func now() -> String { StoreTimestamp.format(clock()) }
}

// MARK: - Reading values back

extension RelationalRunStore {
    func decode<Value: RawRepresentable>(_ type: Value.Type, _ raw: String?, _ what: String) throws -> Value
    where Value.RawValue == String {
        guard let raw, let value = Value(rawValue: raw) else {
            throw StoreError.unreadable(path: location, detail: "\(what) is '\(raw ?? "NULL")'")
        }
        return value
    }

    func date(_ text: String?, _ what: String) throws -> Date {
        guard let text, let date = StoreTimestamp.parse(text) else {
            throw StoreError.unreadable(path: location, detail: "\(what) is '\(text ?? "NULL")', not a UTC time")
        }
        return date
    }

    func optionalDate(_ text: String?, _ what: String) throws -> Date? {
        try text.map { try date($0, what) }
    }

    func json<T: Decodable>(_ type: T.Type, _ text: String?, _ what: String) throws -> T {
        try StoreJSON.decode(type, from: text ?? "null", path: location, what: what)
    }
}
