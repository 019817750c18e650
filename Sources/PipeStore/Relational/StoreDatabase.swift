/// One connection of a relational run store, as the shared store code (`RelationalRunStore`) uses it: statements
/// with `?` parameters sent apart from the SQL text, rows handed to closures, and the backend's `dialect` for the
/// few places where the SQL differs. Transactions are the store's (`RelationalRunStore.read`/`write`).
public protocol StoreDatabase: AnyObject {
    var dialect: SQLDialect { get }

    /// Runs one statement; returns the number of rows it changed.
    @discardableResult
    func execute(_ sql: String, _ values: [any StoreBindable]) throws -> Int

    /// Runs a query and maps each row.
    func query<T>(_ sql: String, _ values: [any StoreBindable], _ map: (any StoreRow) throws -> T) throws -> [T]

    /// The first row of a query, mapped, or `nil` when there is none.
    func first<T>(_ sql: String, _ values: [any StoreBindable], _ map: (any StoreRow) throws -> T) throws -> T?

    /// Runs one `INSERT` and returns the new row's generated key, the integer primary key `column`.
    func insert(_ sql: String, _ values: [any StoreBindable], returning column: String) throws -> Int64

    /// Whether `error` is the backend refusing a value: a `CHECK` failed or a value did not fit its column.
    func isInvalidValue(_ error: any Error) -> Bool
}

extension StoreDatabase {
    @discardableResult
    public func execute(_ sql: String) throws -> Int { try execute(sql, []) }

    public func query<T>(_ sql: String, _ map: (any StoreRow) throws -> T) throws -> [T] {
        try query(sql, [], map)
    }

    public func first<T>(_ sql: String, _ map: (any StoreRow) throws -> T) throws -> T? { try first(sql, [], map) }

    /// The first column of the first row as an integer; `nil` without a row or for `NULL`.
    public func integer(_ sql: String, _ values: [any StoreBindable] = []) throws -> Int64? {
        try first(sql, values) { $0.int64(0) } ?? nil
    }

    /// The first column of the first row as text; `nil` without a row or for `NULL`.
    public func text(_ sql: String, _ values: [any StoreBindable] = []) throws -> String? {
        try first(sql, values) { $0.text(0) } ?? nil
    }
}
