/// Text from a host or a test, made safe to show on a terminal: control characters (C0, DEL, C1) and the
/// bidirectional overrides become visible escapes, so an ANSI or OSC sequence cannot clear the screen, retitle the
/// window or plant a link, and a name cannot pretend to be another.
public enum DisplayEscaping {
    /// `text` with every control character written as `\u{…}` (a tab kept when `keepsTabs`).
    public static func escaped(_ text: String, keepsTabs: Bool = false) -> String {
        guard text.unicodeScalars.contains(where: { needsEscape($0, keepsTabs: keepsTabs) }) else { return text }
        var result = ""
        result.unicodeScalars.reserveCapacity(text.unicodeScalars.count)
        for scalar in text.unicodeScalars {
            if needsEscape(scalar, keepsTabs: keepsTabs) {
                result += "\\u{" + String(scalar.value, radix: 16) + "}"
            } else {
                result.unicodeScalars.append(scalar)
            }
        }
        return result
    }

    /// Bytes that may not be UTF-8 (a file name from an archive): invalid sequences shown as `\x..`.
    public static func escaped(bytes: [UInt8]) -> String {
        var result = ""
        var index = 0
        while index < bytes.count {
            let length = validSequenceLength(bytes, at: index)
            if length == 0 {
                result += "\\x" + (bytes[index] < 16 ? "0" : "") + String(bytes[index], radix: 16)
                index += 1
            } else {
                result += escaped(String(decoding: bytes[index..<index + length], as: UTF8.self))
                index += length
            }
        }
        return result
    }

    static func needsEscape(_ scalar: Unicode.Scalar, keepsTabs: Bool) -> Bool {
        switch scalar.value {
        case 0x09: return !keepsTabs
        case 0x00...0x1F, 0x7F...0x9F: return true
        case 0x202A...0x202E, 0x2066...0x2069: return true
        default: return false
        }
    }

    /// The length of the valid UTF-8 sequence starting at `index`, or 0 when none starts there.
    private static func validSequenceLength(_ bytes: [UInt8], at index: Int) -> Int {
        let first = bytes[index]
        let length: Int
        switch first {
        case 0x00...0x7F: return 1
        case 0xC2...0xDF: length = 2
        case 0xE0...0xEF: length = 3
        case 0xF0...0xF4: length = 4
        default: return 0
        }
        guard index + length <= bytes.count else { return 0 }
        let slice = Array(bytes[index..<index + length])
        var decoder = UTF8()
        var iterator = slice.makeIterator()
        guard case .scalarValue = decoder.decode(&iterator), iterator.next() == nil else { return 0 }
        return length
    }
}
