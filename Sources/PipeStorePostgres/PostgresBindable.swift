/// A Swift value sent as a statement parameter: its text form and the PostgreSQL type it is sent as, so the server
/// never has to guess a type (`$1 IS NULL` alone gives it nothing to guess from). `Optional.none` is `NULL` of the
/// wrapped type.
public protocol PostgresBindable {
    /// The parameter's text, `nil` for `NULL`.
    var postgresText: String? { get }
    /// The type's OID (`pg_type`).
    var postgresType: UInt32 { get }
}

/// The OIDs of the types Pipe sends (`pg_type.dat`).
enum PostgresType {
    static let text: UInt32 = 25
    static let int8: UInt32 = 20
    static let float8: UInt32 = 701
}

extension String: PostgresBindable {
    public var postgresText: String? { self }
    public var postgresType: UInt32 { PostgresType.text }
}

extension Int: PostgresBindable {
    public var postgresText: String? { String(self) }
    public var postgresType: UInt32 { PostgresType.int8 }
}

extension Int64: PostgresBindable {
    public var postgresText: String? { String(self) }
    public var postgresType: UInt32 { PostgresType.int8 }
}

extension Int32: PostgresBindable {
    public var postgresText: String? { String(self) }
    public var postgresType: UInt32 { PostgresType.int8 }
}

extension Double: PostgresBindable {
    public var postgresText: String? {
        if isNaN { return "NaN" }
        if isInfinite { return self < 0 ? "-Infinity" : "Infinity" }
        return String(self)
    }
    public var postgresType: UInt32 { PostgresType.float8 }
}

/// Booleans are stored as 0 and 1, as in the SQLite store, so both schemas hold the same values.
extension Bool: PostgresBindable {
    public var postgresText: String? { self ? "1" : "0" }
    public var postgresType: UInt32 { PostgresType.int8 }
}

/// The type of a `NULL` that has no Swift type of its own: text.
public struct PostgresNull: PostgresBindable {
    public init() {}
    public var postgresText: String? { nil }
    public var postgresType: UInt32 { PostgresType.text }
}

extension Optional: PostgresBindable where Wrapped: PostgresBindable & DefaultTyped {
    public var postgresText: String? { self?.postgresText }
    public var postgresType: UInt32 { Wrapped.defaultPostgresType }
}

/// A type whose OID is known without a value, so its `nil` can be sent typed.
public protocol DefaultTyped {
    static var defaultPostgresType: UInt32 { get }
}

extension String: DefaultTyped { public static var defaultPostgresType: UInt32 { PostgresType.text } }
extension Int: DefaultTyped { public static var defaultPostgresType: UInt32 { PostgresType.int8 } }
extension Int64: DefaultTyped { public static var defaultPostgresType: UInt32 { PostgresType.int8 } }
extension Int32: DefaultTyped { public static var defaultPostgresType: UInt32 { PostgresType.int8 } }
extension Double: DefaultTyped { public static var defaultPostgresType: UInt32 { PostgresType.float8 } }
extension Bool: DefaultTyped { public static var defaultPostgresType: UInt32 { PostgresType.int8 } }
