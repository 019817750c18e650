/// A property list that does not read: where (a byte offset, or an XML line and column) and why.
public struct PropertyListError: Error, Equatable, CustomStringConvertible {
    public let message: String

    init(_ message: String) {
        self.message = message
    }

    static func binary(at offset: Int, _ reason: String) -> PropertyListError {
        PropertyListError("binary property list, byte \(offset): \(reason)")
    }

    static func xml(line: Int, column: Int, _ reason: String) -> PropertyListError {
        PropertyListError("XML property list, line \(line), column \(column): \(reason)")
    }

    public var description: String { message }
}
