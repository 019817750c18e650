import Foundation

/// One object of the legacy `xcrun xcresulttool get --format json` output (`apple-formats.md` 5.4), read through
/// its wrappers: every value carries `_type`, scalars hold their text in `_value` (numbers and booleans too), and
/// arrays hold their elements in `_values`.
///
/// Reading is lenient: a missing key, or a value of another type, reads as `nil` (or an empty array), because
/// absent optionals are simply missing keys and newer formats add fields.
public struct XcresultLegacyObject {
    /// The object's fields as `JSONSerialization` read them, wrappers included.
    public let fields: [String: Any]

    public init(_ fields: [String: Any]) {
        self.fields = fields
    }

    /// `_type._name`: `ActionsInvocationRecord`, `ActionTestMetadata`, …
    public var typeName: String? {
        (fields["_type"] as? [String: Any])?["_name"] as? String
    }

    /// The type and its supertypes, most specific first (`ActionTestMetadata`,
    /// `ActionTestSummaryIdentifiableObject`, `ActionAbstractTestSummary`).
    public var typeNames: [String] {
        var names: [String] = []
        var type = fields["_type"] as? [String: Any]
        while let current = type, names.count < 16 {
            if let name = current["_name"] as? String { names.append(name) }
            type = current["_supertype"] as? [String: Any]
        }
        return names
    }

    /// The text of a scalar field (`{ "_type" : { "_name" : "String" }, "_value" : "…" }`).
    public func string(_ key: String) -> String? {
        guard let wrapper = fields[key] as? [String: Any] else { return nil }
        if let text = wrapper["_value"] as? String { return text }
        // Not what xcresulttool writes, but a hand-edited file may hold a bare number.
        if let number = wrapper["_value"] as? NSNumber { return number.stringValue }
        return nil
    }

    /// An `Int` field, whose value is written as text (`"_value" : "5"`).
    public func int(_ key: String) -> Int? {
        string(key).flatMap { Int($0.trimmingCharacters(in: .whitespaces)) }
    }

    /// A `Double` field, whose value is written as text (`"_value" : "0.0049179792404174805"`).
    public func double(_ key: String) -> Double? {
        string(key).flatMap { Double($0.trimmingCharacters(in: .whitespaces)) }
    }

    /// A nested object.
    public func object(_ key: String) -> XcresultLegacyObject? {
        (fields[key] as? [String: Any]).map(XcresultLegacyObject.init)
    }

    /// The objects of an `Array` field (`"_values" : [ … ]`); empty when absent.
    public func array(_ key: String) -> [XcresultLegacyObject] {
        guard let wrapper = fields[key] as? [String: Any], let values = wrapper["_values"] as? [Any] else { return [] }
        return values.compactMap { ($0 as? [String: Any]).map(XcresultLegacyObject.init) }
    }

    /// The `id` of a `Reference` field (`testsRef`, `summaryRef`): what `get --id <id>` fetches.
    public func referenceID(_ key: String) -> String? {
        object(key)?.string("id")
    }
}
