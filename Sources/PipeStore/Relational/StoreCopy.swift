import Foundation
import PipeCore

/// `pipe store migrate`: copies one store into another, SQLite to PostgreSQL or back, every table, in one write
/// transaction of the target (a copy that fails leaves the target as it was) from one read snapshot of the source.
public enum StoreCopy {
    /// Every table, in an order the foreign keys allow.
    public static let copiedTables = [
        "runs", "layers", "attempts", "test_results", "artifacts", "signoffs", "release_builds", "events",
        "host_health", "run_queue",
        "schedule_state", "watch_heads", "audit_log", "forge_deliveries", "forge_outbox", "forge_objects",
        "forge_approvals", "request_claims", "request_buckets",
    ]

    /// Tables of live processes, not history: who holds a host's slot and which controllers run.
    public static let processTables = ["host_leases", "controller_lock", "controllers"]

    /// One table's rows in the source and in the target after the copy (always equal, or the copy fails).
    public struct TableCount: Equatable, Sendable {
        public var table: String
        public var rows: Int
    }

    /// Copies every table of `source` into `target`, whose tables must all be empty; returns the rows per table.
    public static func copy(from source: any RelationalRunStore, to target: any RelationalRunStore) throws
        -> [TableCount]
    {
        try source.read { from in
            try requireKnownTables(from, source: source)
            return try target.write { to in
                try requireEmpty(to, target: target)
                return try copiedTables.map { table in try copy(table, from: from, to: to, target: target) }
            }
        }
    }

    /// A table this Pipe does not know would be left behind: refused, so a copy is never silently partial.
    private static func requireKnownTables(_ db: any StoreDatabase, source: any RelationalRunStore) throws {
        let known = Set(copiedTables + processTables)
        let unknown = try db.query(db.dialect.tablesQuery) { $0.text(0) ?? "" }.filter { !known.contains($0) }
        guard unknown.isEmpty else {
            throw StoreError.invalidInput(
                "the run store \(source.location) holds tables this Pipe does not copy (\(unknown.joined(separator: ", "))): "
                    + "it was written by a newer Pipe; migrate with that Pipe")
        }
    }

    private static func requireEmpty(_ db: any StoreDatabase, target: any RelationalRunStore) throws {
        for table in copiedTables {
            let rows = try db.integer("SELECT count(*) FROM \(table)") ?? 0
            guard rows == 0 else {
                throw StoreError.invalidInput(
                    "the run store \(target.location) already holds \(rows) rows in \(table); migrate into an empty "
                        + "store (a new database, or a path where no file is)")
            }
        }
    }

    private static func copy(
        _ table: String, from: any StoreDatabase, to: any StoreDatabase, target: any RelationalRunStore
    ) throws -> TableCount {
        let columns = try from.query(from.dialect.columnsQuery, [table]) { row in
            (name: row.text(0) ?? "", type: SQLDialect.valueType(ofDeclared: row.text(1) ?? ""))
        }
        let targetColumns = try to.query(to.dialect.columnsQuery, [table]) { $0.text(0) ?? "" }
        guard Set(columns.map(\.name)) == Set(targetColumns) else {
            throw StoreError.invalidInput(
                "the table \(table) has columns \(columns.map(\.name).joined(separator: ", ")) in the source but "
                    + "\(targetColumns.joined(separator: ", ")) in \(target.location); both stores must have the same "
                    + "schema version")
        }
        let names = columns.map(\.name).joined(separator: ", ")
        let insert =
            "INSERT INTO \(table) (\(names)) VALUES (\(columns.map { _ in "?" }.joined(separator: ", ")))"
        let expected = Int(try from.integer("SELECT count(*) FROM \(table)") ?? 0)
        _ = try from.query("SELECT \(names) FROM \(table)", []) { row in
            let values = columns.enumerated().map { index, column -> any StoreBindable in
                ColumnValue(value(row, Int32(index), column.type), type: column.type)
            }
            try to.execute(insert, values)
        }
        let integerColumns = columns.filter { $0.type == .integer }.map(\.name)
        for statement in to.dialect.statementsAfterCopying(table: table, integerColumns: integerColumns) {
            _ = try to.query(statement, []) { _ in () }
        }
        let copied = Int(try to.integer("SELECT count(*) FROM \(table)") ?? 0)
        guard copied == expected else {
            throw StoreError.invalidInput(
                "copying \(table) into \(target.location) gave \(copied) rows for the source's \(expected); nothing "
                    + "was kept")
        }
        return TableCount(table: table, rows: copied)
    }

    private static func value(_ row: any StoreRow, _ index: Int32, _ type: StoreValueType) -> StoreValue {
        if row.isNull(index) { return .null }
        switch type {
        case .integer: return row.int64(index).map(StoreValue.integer) ?? .null
        case .real: return row.double(index).map(StoreValue.real) ?? .null
        case .text, .blob: return row.text(index).map(StoreValue.text) ?? .null
        }
    }
}
