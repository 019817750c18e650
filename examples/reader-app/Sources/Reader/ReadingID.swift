/// The rule for a reading ID (a book's ID in the reading log), kept apart from the intent so it is tested directly.
public enum ReadingID {
    public static let maximumLength = 32

    /// The ID without the whitespace around it, if it is 1–32 ASCII letters, digits, `_` or `-`.
    ///
    /// Whitespace is allowed only at the ends (including the ideographic space an IME types); inside the ID it is an
    /// invalid character. Characters are checked before length, so the length counted is one of ASCII characters.
    public static func normalize(_ raw: String) throws(ReadingIDError) -> String {
        let trimmed = raw.drop(while: \.isWhitespace).reversed().drop(while: \.isWhitespace).reversed()
        let value = String(trimmed)
        guard !value.isEmpty else { throw .empty }
        if let invalid = value.first(where: { !isAllowed($0) }) { throw .invalidCharacter(invalid) }
        guard value.count <= maximumLength else { throw .tooLong(count: value.count) }
        return value
    }

    private static func isAllowed(_ character: Character) -> Bool {
        // One scalar only: "\r\n" and composed characters report an ASCII value yet are not one ASCII character.
        guard character.unicodeScalars.count == 1, let ascii = character.asciiValue else { return false }
        switch ascii {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
            UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "_"), UInt8(ascii: "-"):
            return true
        default:
            return false
        }
    }
}
