import Foundation

/// A Swift value that can be bound to a statement parameter; `Optional.none` binds `NULL` of the wrapped type.
public protocol StoreBindable {
    var storeValue: StoreValue { get }
    /// The type a `NULL` of this Swift type is sent as.
    static var storeType: StoreValueType { get }
    /// The type the value is sent as: its own, or for `NULL` its Swift type's.
    var boundType: StoreValueType { get }
}

extension StoreBindable {
    public var boundType: StoreValueType { storeValue.type ?? Self.storeType }
}

/// A value read from one column and written to the same column elsewhere: a `NULL` keeps the column's type.
public struct ColumnValue: StoreBindable {
    public var storeValue: StoreValue
    public var boundType: StoreValueType
    public static var storeType: StoreValueType { .text }

    public init(_ value: StoreValue, type: StoreValueType) {
        storeValue = value
        boundType = type
    }
}

extension StoreValue: StoreBindable {
    public var storeValue: StoreValue { self }
    /// An untyped `StoreValue.null` is text, the type that converts to every other.
    public static var storeType: StoreValueType { .text }
}

extension String: StoreBindable {
    public var storeValue: StoreValue { .text(self) }
    public static var storeType: StoreValueType { .text }
}

extension Int: StoreBindable {
    public var storeValue: StoreValue { .integer(Int64(self)) }
    public static var storeType: StoreValueType { .integer }
}

extension Int64: StoreBindable {
    public var storeValue: StoreValue { .integer(self) }
    public static var storeType: StoreValueType { .integer }
}

extension Int32: StoreBindable {
    public var storeValue: StoreValue { .integer(Int64(self)) }
    public static var storeType: StoreValueType { .integer }
}

extension Double: StoreBindable {
    public var storeValue: StoreValue { .real(self) }
    public static var storeType: StoreValueType { .real }
}

/// Booleans are stored as 0 and 1 on every backend, so the schemas hold the same values.
extension Bool: StoreBindable {
    public var storeValue: StoreValue { .integer(self ? 1 : 0) }
    public static var storeType: StoreValueType { .integer }
}

extension Data: StoreBindable {
    public var storeValue: StoreValue { .blob(self) }
    public static var storeType: StoreValueType { .blob }
}

extension Optional: StoreBindable where Wrapped: StoreBindable {
    public var storeValue: StoreValue { self?.storeValue ?? .null }
    public static var storeType: StoreValueType { Wrapped.storeType }
}
