/// One row of a query's result, as every backend hands it to the closure that maps it; valid only inside that
/// closure.
public protocol StoreRow {
    /// Whether column `index` (0-based) is `NULL`.
    func isNull(_ index: Int32) -> Bool
    /// Column `index` as an integer; `nil` for `NULL`.
    func int64(_ index: Int32) -> Int64?
    /// Column `index` as a floating-point number; `nil` for `NULL`.
    func double(_ index: Int32) -> Double?
    /// Column `index` as text; `nil` for `NULL`.
    func text(_ index: Int32) -> String?
}

extension StoreRow {
    /// Column `index` as an `Int`; `nil` for `NULL`.
    public func int(_ index: Int32) -> Int? { int64(index).map { Int($0) } }
}
