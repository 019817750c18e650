import Foundation

/// Removes terminal control sequences (ANSI colours, cursor moves, OSC titles) and other C0 control characters
/// from text before it is read, so `ESC[1m** TEST SUCCEEDED **ESC[0m` reads as the banner it shows.
///
/// Tabs and line feeds are kept (xcodebuild indents block items with tabs; JSON messages span lines). Sequences follow ECMA-48: CSI `ESC [` parameters and a
/// final byte 0x40–0x7E; OSC `ESC ]` up to BEL or `ESC \`; other `ESC`, intermediate bytes 0x20–0x2F and a final byte. The 8-bit CSI (0x9B) is not
/// treated specially, since in UTF-8 it is a continuation byte.
public enum ControlSequences {
    /// The bytes without control sequences, or `nil` when there were none (the common case: no copy).
    public static func stripped(_ bytes: UnsafeBufferPointer<UInt8>) -> [UInt8]? {
        guard bytes.contains(where: isControl) else { return nil }
        var out: [UInt8] = []
        out.reserveCapacity(bytes.count)
        var index = 0
        while index < bytes.count {
            let byte = bytes[index]
            if byte == 0x1B {
                index = end(ofEscapeAt: index, in: bytes)
                continue
            }
            if !isControl(byte) { out.append(byte) }
            index += 1
        }
        return out
    }

    /// `text` without control sequences.
    public static func strip(_ text: String) -> String {
        guard text.utf8.contains(where: isControl) else { return text }
        let bytes = Array(text.utf8)
        return bytes.withUnsafeBufferPointer { buffer in
            stripped(buffer).map { String(decoding: $0, as: UTF8.self) } ?? text
        }
    }

    /// Every string in a JSON value (`JSONSerialization`'s objects), keys included, without control sequences.
    public static func stripStrings(in value: Any) -> Any {
        switch value {
        case let text as String:
            return strip(text)
        case let array as [Any]:
            return array.map(stripStrings(in:))
        case let object as [String: Any]:
            var result: [String: Any] = [:]
            for (key, item) in object { result[strip(key)] = stripStrings(in: item) }
            return result
        default:
            return value
        }
    }

    /// Whether JSON text may hold a control character in a string (escaped as `\u00XX`, `\r`, `\b`, `\f`, or raw).
    public static func mayHoldControls(json: Data) -> Bool {
        if json.contains(where: { $0 == 0x1B || $0 == 0x7F }) { return true }
        return ["\\u00", "\\r", "\\b", "\\f"].contains { json.range(of: Data($0.utf8)) != nil }
    }

    private static func isControl(_ byte: UInt8) -> Bool {
        (byte < 0x20 && byte != 0x09 && byte != 0x0A) || byte == 0x7F
    }

    /// The index just past the escape sequence starting at `start`.
    private static func end(ofEscapeAt start: Int, in bytes: UnsafeBufferPointer<UInt8>) -> Int {
        var index = start + 1
        guard index < bytes.count else { return index }
        switch bytes[index] {
        case UInt8(ascii: "["):
            index += 1
            while index < bytes.count, !(0x40...0x7E).contains(bytes[index]) { index += 1 }
            return index + 1
        case UInt8(ascii: "]"):
            index += 1
            while index < bytes.count {
                if bytes[index] == 0x07 { return index + 1 }
                if bytes[index] == 0x1B, index + 1 < bytes.count, bytes[index + 1] == UInt8(ascii: "\\") {
                    return index + 2
                }
                index += 1
            }
            return index
        default:
            // `ESC ( B` and the like: intermediate bytes, then a final one.
            while index < bytes.count, (0x20...0x2F).contains(bytes[index]) { index += 1 }
            return index + 1
        }
    }
}
