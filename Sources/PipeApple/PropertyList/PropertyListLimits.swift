/// Bounds on what a property list may hold: the files come from a host or from an `.ipa`, both untrusted.
public struct PropertyListLimits: Sendable {
    /// Input larger than this is refused before it is parsed.
    public var maximumBytes: Int
    /// Values in the whole document (a binary plist can point at one object many times; each visit counts).
    public var maximumValues: Int
    /// Arrays and dictionaries inside each other.
    public var maximumDepth: Int

    public init(maximumBytes: Int = 4 << 20, maximumValues: Int = 200_000, maximumDepth: Int = 64) {
        self.maximumBytes = maximumBytes
        self.maximumValues = maximumValues
        self.maximumDepth = maximumDepth
    }

    /// Refuses a document once it has read more values, or nests deeper, than these limits allow.
    func check(valuesRead: Int, depth: Int) throws {
        guard valuesRead <= maximumValues else {
            throw PropertyListError("the property list holds more than \(maximumValues) values")
        }
        guard depth <= maximumDepth else {
            throw PropertyListError("the property list nests deeper than \(maximumDepth) levels")
        }
    }
}
