import Foundation

/// A value bound to a statement parameter, the same for every backend.
public enum StoreValue: Equatable, Sendable {
    case null
    case integer(Int64)
    case real(Double)
    case text(String)
    case blob(Data)

    /// The value's type; `nil` for `NULL`, whose type comes from the Swift type it stands for.
    public var type: StoreValueType? {
        switch self {
        case .null: return nil
        case .integer: return .integer
        case .real: return .real
        case .text: return .text
        case .blob: return .blob
        }
    }
}

/// The column types the stores use. PostgreSQL wants a type for every parameter, `NULL` included (`? IS NULL`
/// alone gives it nothing to infer one from); SQLite ignores it.
public enum StoreValueType: Sendable {
    case integer
    case real
    case text
    case blob
}
