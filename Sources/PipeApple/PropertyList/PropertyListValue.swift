import Foundation

/// One value of a property list (binary `bplist00` or XML), as `PropertyListReader` reads it.
public indirect enum PropertyListValue: Equatable, Sendable {
    case string(String)
    case integer(Int64)
    case real(Double)
    case boolean(Bool)
    case date(Date)
    case data([UInt8])
    case array([PropertyListValue])
    case dictionary([String: PropertyListValue])
    /// A binary plist's UID (keyed archives); never in an Info.plist, kept so such a file still reads.
    case uid(UInt64)

    /// The value under `key` when this is a dictionary.
    public subscript(key: String) -> PropertyListValue? {
        guard case .dictionary(let entries) = self else { return nil }
        return entries[key]
    }

    public var string: String? {
        guard case .string(let text) = self else { return nil }
        return text
    }

    public var integer: Int64? {
        guard case .integer(let number) = self else { return nil }
        return number
    }

    public var date: Date? {
        guard case .date(let moment) = self else { return nil }
        return moment
    }

    public var data: [UInt8]? {
        guard case .data(let bytes) = self else { return nil }
        return bytes
    }

    public var array: [PropertyListValue]? {
        guard case .array(let items) = self else { return nil }
        return items
    }

    /// What a message calls this kind of value.
    var kindName: String {
        switch self {
        case .string: return "a string"
        case .integer: return "an integer"
        case .real: return "a real"
        case .boolean: return "a boolean"
        case .date: return "a date"
        case .data: return "data"
        case .array: return "an array"
        case .dictionary: return "a dictionary"
        case .uid: return "a UID"
        }
    }
}
