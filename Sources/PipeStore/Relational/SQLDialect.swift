/// The places where the relational stores' SQL differs between SQLite and PostgreSQL; everything else is written
/// once, in the SQL both accept.
public enum SQLDialect: Sendable {
    case sqlite
    case postgresql

    /// `a <same> b`: equality that holds for two `NULL`s.
    var isSame: String {
        switch self {
        case .sqlite: return "IS"
        case .postgresql: return "IS NOT DISTINCT FROM"
        }
    }

    /// The smaller of two values (`NULL` when either is, on SQLite; the other one on PostgreSQL).
    func least(_ first: String, _ second: String) -> String {
        switch self {
        case .sqlite: return "min(\(first), \(second))"
        case .postgresql: return "LEAST(\(first), \(second))"
        }
    }

    /// The larger of two values.
    func greatest(_ first: String, _ second: String) -> String {
        switch self {
        case .sqlite: return "max(\(first), \(second))"
        case .postgresql: return "GREATEST(\(first), \(second))"
        }
    }

    /// A condition as the integer 1 or 0 (SQLite's comparisons already are; PostgreSQL's are booleans).
    func integer(_ condition: String) -> String {
        switch self {
        case .sqlite: return condition
        case .postgresql: return "(\(condition))::int"
        }
    }

    /// The distinct values of a text expression in a group, joined by commas.
    func distinctList(_ expression: String) -> String {
        switch self {
        case .sqlite: return "group_concat(DISTINCT \(expression))"
        case .postgresql: return "string_agg(DISTINCT \(expression), ',')"
        }
    }

    /// A JSON array column's text with one parameter (`?`, a string) appended to it.
    func appendingParameterToJSONArray(_ column: String) -> String {
        switch self {
        case .sqlite: return "json_insert(\(column), '$[#]', ?)"
        case .postgresql: return "(\(column)::jsonb || jsonb_build_array(?::text))::text"
        }
    }

    /// The seconds from the timestamp column `start` to one parameter (`?`, a timestamp), rounded to the
    /// millisecond and never below 0.
    func secondsFromColumnToParameter(_ start: String) -> String {
        switch self {
        case .sqlite:
            return "max(0, round((julianday(?) - julianday(\(start))) * 86400000.0) / 1000.0)"
        case .postgresql:
            return "GREATEST(0, round((extract(epoch FROM (?::timestamptz - \(start)::timestamptz)) * 1000)::numeric) "
                + "/ 1000.0)"
        }
    }

    /// `column` starting with one parameter, the pattern `prefixPattern(_:)` makes; the prefix must hold no
    /// pattern character.
    func startsWithParameter(_ column: String) -> String {
        switch self {
        case .sqlite: return "\(column) GLOB ?"
        case .postgresql: return "\(column) LIKE ?"
        }
    }

    func prefixPattern(_ prefix: String) -> String {
        switch self {
        case .sqlite: return prefix + "*"
        case .postgresql: return prefix + "%"
        }
    }

    /// An `ORDER BY` of text in byte order, as SQLite always sorts (PostgreSQL follows the database's locale).
    func byteOrder(_ column: String) -> String {
        switch self {
        case .sqlite: return column
        case .postgresql: return "\(column) COLLATE \"C\""
        }
    }

    // MARK: - The store's clock

    /// The store's current time as a `StoreTimestamp` text (UTC, milliseconds).
    var nowTimestamp: String {
        switch self {
        case .sqlite: return "strftime('%Y-%m-%dT%H:%M:%fZ', 'now')"
        case .postgresql:
            return "to_char(clock_timestamp() AT TIME ZONE 'UTC', 'YYYY-MM-DD\"T\"HH24:MI:SS.MS\"Z\"')"
        }
    }

    /// The seconds from a timestamp column to the store's current time.
    func secondsSince(_ column: String) -> String {
        switch self {
        case .sqlite: return "((julianday('now') - julianday(\(column))) * 86400.0)"
        case .postgresql: return "extract(epoch FROM (clock_timestamp() - \(column)::timestamptz))::float8"
        }
    }

    // MARK: - Copying a whole store

    /// The store's tables (one row each: the name), the bookkeeping of the schema version left out.
    var tablesQuery: String {
        switch self {
        case .sqlite:
            return "SELECT name FROM sqlite_schema WHERE type = 'table' AND name NOT LIKE 'sqlite%' ORDER BY name"
        case .postgresql:
            return """
                SELECT table_name FROM information_schema.tables
                WHERE table_schema = current_schema() AND table_type = 'BASE TABLE' AND table_name <> 'pipe_store'
                ORDER BY table_name
                """
        }
    }

    /// A table's stored columns in order (generated ones are left out: they follow from the others), one
    /// parameter (the table): each row the name and the declared type.
    var columnsQuery: String {
        switch self {
        case .sqlite: return "SELECT name, type FROM pragma_table_info(?) ORDER BY cid"
        case .postgresql:
            return """
                SELECT column_name, data_type FROM information_schema.columns
                WHERE table_schema = current_schema() AND table_name = ? AND is_generated = 'NEVER'
                ORDER BY ordinal_position
                """
        }
    }

    /// The value type of a declared column type (`INTEGER`, `bigint`, `double precision`, `TEXT`, …).
    static func valueType(ofDeclared declared: String) -> StoreValueType {
        let type = declared.uppercased()
        if type.contains("INT") { return .integer }
        if type.contains("REAL") || type.contains("DOUBLE") || type.contains("FLOAT") || type.contains("NUMERIC") {
            return .real
        }
        if type.contains("BLOB") || type.contains("BYTEA") { return .blob }
        return .text
    }

    /// What must follow rows inserted with their own keys: PostgreSQL's identity sequences start where the copied
    /// keys end (SQLite's AUTOINCREMENT follows by itself).
    func statementsAfterCopying(table: String, integerColumns: [String]) -> [String] {
        switch self {
        case .sqlite: return []
        case .postgresql:
            return integerColumns.map { column in
                "SELECT setval(pg_get_serial_sequence('\(table)', '\(column)'), max(\(column))) FROM \(table) "
                    + "WHERE pg_get_serial_sequence('\(table)', '\(column)') IS NOT NULL HAVING max(\(column)) IS NOT NULL"
            }
        }
    }

    /// The `LIMIT` parameter that means no limit.
    var noLimit: Int? {
        switch self {
        case .sqlite: return -1
        case .postgresql: return nil
        }
    }
}
