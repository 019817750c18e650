/// Legacy `xcresulttool get --format json` output that Pipe cannot use.
public enum XcresultLegacyError: Error, Equatable, CustomStringConvertible, Sendable {
    /// The top-level value is not an object with `_type._name`.
    case notLegacyJSON(detail: String)
    /// An object of a type Pipe does not read, with the types it does.
    case unsupportedType(String, supported: [String])

    public var description: String {
        switch self {
        case .notLegacyJSON(let detail):
            return
                "not the legacy xcresulttool JSON (`xcrun xcresulttool get --legacy --format json --path …`): \(detail)"
        case .unsupportedType(let name, let supported):
            return
                "legacy xcresulttool object of type \(name) is not one Pipe reads; give "
                + supported.joined(separator: ", ")
                + " (the root record, then `get --legacy --format json --path … --id <testsRef id>`)"
        }
    }
}
