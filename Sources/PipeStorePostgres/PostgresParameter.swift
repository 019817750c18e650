import Foundation
import PipeStore

/// How a statement parameter is sent to PostgreSQL: its text form and the type's OID, so the server never has to
/// guess a type (`$1 IS NULL` alone gives it nothing to guess from).
enum PostgresParameter {
    /// The OIDs of the types Pipe sends (`pg_type.dat`).
    static func type(_ type: StoreValueType) -> UInt32 {
        switch type {
        case .integer: return 20  // int8
        case .real: return 701  // float8
        case .text: return 25  // text
        case .blob: return 17  // bytea
        }
    }

    /// The parameter's text, `nil` for `NULL`.
    static func text(_ value: StoreValue) -> String? {
        switch value {
        case .null: return nil
        case .integer(let number): return String(number)
        case .real(let number):
            if number.isNaN { return "NaN" }
            if number.isInfinite { return number < 0 ? "-Infinity" : "Infinity" }
            return String(number)
        case .text(let text): return text
        // bytea's hex input form.
        case .blob(let data): return "\\x" + data.map { String(format: "%02x", $0) }.joined()
        }
    }
}
