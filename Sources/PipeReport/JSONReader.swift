import Foundation

/// Reads JSON and, when the text is cut short or broken, says where reading stopped (byte, line, column) and keeps
/// what it read before that point: containers that were open are closed, the value in progress is left out.
///
/// `JSONSerialization` only says that the data is "not in the correct format"; a file copied off a Mac that was cut
/// short deserves the place it ends, and whatever it holds up to there. Values come back in `JSONSerialization`'s
/// types (`[String: Any]`, `[Any]`, `String`, `Int`, `Double`, `Bool`, `NSNull`), so they can be written back out
/// and decoded.
public enum JSONReader {
    /// What was read, and the problem that stopped reading, if one did.
    public struct Result {
        /// The value (complete, or the part before `problem`); `nil` when nothing could be read.
        public var value: Any?
        public var problem: Problem?
    }

    /// Where and why reading stopped.
    public struct Problem: Error, Equatable, CustomStringConvertible, Sendable {
        /// 0-based offset of the byte where reading stopped.
        public var byteOffset: Int
        /// 1-based.
        public var line: Int
        /// 1-based, in bytes.
        public var column: Int
        public var message: String

        public var description: String { "line \(line), column \(column) (byte \(byteOffset)): \(message)" }
    }

    /// The deepest nesting read; deeper input is refused rather than risking the stack.
    public static let maximumDepth = 512

    public static func read(_ data: Data) -> Result {
        data.withUnsafeBytes { raw in
            var parser = Parser(bytes: raw.bindMemory(to: UInt8.self))
            let value = parser.value(depth: 0)
            if parser.problem == nil {
                parser.skipWhitespace()
                if parser.offset < parser.bytes.count {
                    parser.fail("unexpected text after the JSON value")
                }
            }
            return Result(value: value, problem: parser.problem.map { parser.locate($0) })
        }
    }

    private struct Parser {
        let bytes: UnsafeBufferPointer<UInt8>
        var offset = 0
        var problem: (offset: Int, message: String)?

        init(bytes: UnsafeBufferPointer<UInt8>) {
            self.bytes = bytes
        }

        mutating func fail(_ message: String) {
            if problem == nil { problem = (offset, message) }
        }

        func locate(_ problem: (offset: Int, message: String)) -> Problem {
            var line = 1
            var lineStart = 0
            for index in 0..<min(problem.offset, bytes.count) where bytes[index] == 0x0A {
                line += 1
                lineStart = index + 1
            }
            return Problem(
                byteOffset: problem.offset, line: line, column: problem.offset - lineStart + 1,
                message: problem.message)
        }

        var current: UInt8? { offset < bytes.count ? bytes[offset] : nil }

        mutating func skipWhitespace() {
            while let byte = current, byte == 0x20 || byte == 0x0A || byte == 0x0D || byte == 0x09 { offset += 1 }
        }

        mutating func value(depth: Int) -> Any? {
            skipWhitespace()
            guard let byte = current else {
                fail(offset == 0 ? "the input is empty" : "the input ends where a value should be")
                return nil
            }
            guard depth < JSONReader.maximumDepth else {
                fail("nested deeper than \(JSONReader.maximumDepth) levels")
                return nil
            }
            switch byte {
            case UInt8(ascii: "{"): return object(depth: depth)
            case UInt8(ascii: "["): return array(depth: depth)
            case UInt8(ascii: "\""): return string()
            case UInt8(ascii: "t"): return literal("true", true)
            case UInt8(ascii: "f"): return literal("false", false)
            case UInt8(ascii: "n"): return literal("null", NSNull())
            case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): return number()
            default:
                fail(unexpected(byte, expected: "a JSON value"))
                return nil
            }
        }

        mutating func object(depth: Int) -> Any? {
            offset += 1
            var object: [String: Any] = [:]
            skipWhitespace()
            if current == UInt8(ascii: "}") {
                offset += 1
                return object
            }
            while true {
                skipWhitespace()
                guard let byte = current else {
                    fail("the input ends inside an object")
                    return object
                }
                guard byte == UInt8(ascii: "\"") else {
                    fail(unexpected(byte, expected: "a key in quotes"))
                    return object
                }
                guard let key = string() else { return object }
                skipWhitespace()
                guard current == UInt8(ascii: ":") else {
                    fail(
                        current.map { unexpected($0, expected: "':' after the key \"\(key)\"") }
                            ?? "the input ends after the key \"\(key)\"")
                    return object
                }
                offset += 1
                guard let member = value(depth: depth + 1) else { return object }
                object[key] = member
                if problem != nil { return object }
                skipWhitespace()
                switch current {
                case UInt8(ascii: ",")?:
                    offset += 1
                case UInt8(ascii: "}")?:
                    offset += 1
                    return object
                case let byte?:
                    fail(unexpected(byte, expected: "',' or '}' in an object"))
                    return object
                case nil:
                    fail("the input ends inside an object")
                    return object
                }
            }
        }

        mutating func array(depth: Int) -> Any? {
            offset += 1
            var array: [Any] = []
            skipWhitespace()
            if current == UInt8(ascii: "]") {
                offset += 1
                return array
            }
            while true {
                guard let element = value(depth: depth + 1) else { return array }
                array.append(element)
                if problem != nil { return array }
                skipWhitespace()
                switch current {
                case UInt8(ascii: ",")?:
                    offset += 1
                case UInt8(ascii: "]")?:
                    offset += 1
                    return array
                case let byte?:
                    fail(unexpected(byte, expected: "',' or ']' in an array"))
                    return array
                case nil:
                    fail("the input ends inside an array")
                    return array
                }
            }
        }

        mutating func string() -> String? {
            offset += 1
            var text: [UInt8] = []
            while let byte = current {
                switch byte {
                case UInt8(ascii: "\""):
                    offset += 1
                    return String(decoding: text, as: UTF8.self)
                case UInt8(ascii: "\\"):
                    offset += 1
                    guard escape(into: &text) else { return nil }
                case 0x00..<0x20:
                    fail(byte == 0 ? "a NUL byte: binary data, not JSON" : "a control character inside a string")
                    return nil
                default:
                    text.append(byte)
                    offset += 1
                }
            }
            fail("the input ends inside a string")
            return nil
        }

        private mutating func escape(into text: inout [UInt8]) -> Bool {
            guard let byte = current else {
                fail("the input ends inside a string")
                return false
            }
            offset += 1
            let simple: [UInt8: UInt8] = [
                UInt8(ascii: "\""): 0x22, UInt8(ascii: "\\"): 0x5C, UInt8(ascii: "/"): 0x2F, UInt8(ascii: "b"): 0x08,
                UInt8(ascii: "f"): 0x0C, UInt8(ascii: "n"): 0x0A, UInt8(ascii: "r"): 0x0D, UInt8(ascii: "t"): 0x09,
            ]
            if let replacement = simple[byte] {
                text.append(replacement)
                return true
            }
            guard byte == UInt8(ascii: "u"), var scalar = hexQuad() else {
                offset -= 1
                fail("an invalid escape in a string")
                return false
            }
            // A high surrogate must be followed by `\uDC00`–`\uDFFF`; alone, it becomes U+FFFD.
            if (0xD800..<0xDC00).contains(scalar), current == UInt8(ascii: "\\"),
                offset + 1 < bytes.count, bytes[offset + 1] == UInt8(ascii: "u")
            {
                let save = offset
                offset += 2
                if let low = hexQuad(), (0xDC00..<0xE000).contains(low) {
                    scalar = 0x10000 + ((scalar - 0xD800) << 10) + (low - 0xDC00)
                } else {
                    offset = save
                }
            }
            text.append(contentsOf: Array(String(Character(Unicode.Scalar(scalar) ?? "\u{FFFD}")).utf8))
            return true
        }

        private mutating func hexQuad() -> UInt32? {
            guard offset + 4 <= bytes.count else { return nil }
            var value: UInt32 = 0
            for index in offset..<offset + 4 {
                guard let digit = Character(Unicode.Scalar(bytes[index])).hexDigitValue else { return nil }
                value = value * 16 + UInt32(digit)
            }
            offset += 4
            return value
        }

        mutating func number() -> Any? {
            let start = offset
            var isInteger = true
            if current == UInt8(ascii: "-") { offset += 1 }
            func digits() -> Int {
                let begin = offset
                while let byte = current, (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) { offset += 1 }
                return offset - begin
            }
            guard digits() > 0 else {
                fail("a number without digits")
                return nil
            }
            if current == UInt8(ascii: ".") {
                offset += 1
                isInteger = false
                guard digits() > 0 else {
                    fail(current == nil ? "the input ends inside a number" : "a number without digits after '.'")
                    return nil
                }
            }
            if current == UInt8(ascii: "e") || current == UInt8(ascii: "E") {
                offset += 1
                isInteger = false
                if current == UInt8(ascii: "+") || current == UInt8(ascii: "-") { offset += 1 }
                guard digits() > 0 else {
                    fail(current == nil ? "the input ends inside a number" : "a number without exponent digits")
                    return nil
                }
            }
            let text = String(decoding: UnsafeBufferPointer(rebasing: bytes[start..<offset]), as: UTF8.self)
            if isInteger, let integer = Int(text) { return integer }
            return Double(text) ?? 0
        }

        mutating func literal(_ word: String, _ value: Any) -> Any? {
            let expected = Array(word.utf8)
            for byte in expected {
                guard let actual = current else {
                    fail("the input ends inside '\(word)'")
                    return nil
                }
                guard actual == byte else {
                    fail(unexpected(actual, expected: "'\(word)'"))
                    return nil
                }
                offset += 1
            }
            return value
        }

        func unexpected(_ byte: UInt8, expected: String) -> String {
            if byte == 0 { return "a NUL byte where \(expected) should be: binary data, not JSON" }
            if offset == 0 || bytes[..<offset].allSatisfy({ $0 == 0x20 || $0 == 0x0A || $0 == 0x0D || $0 == 0x09 }) {
                let end = bytes[offset...].firstIndex { $0 == 0x0A || $0 == 0x0D } ?? bytes.count
                let text = String(
                    decoding: UnsafeBufferPointer(rebasing: bytes[offset..<min(end, offset + 80)]), as: UTF8.self)
                return "not JSON: it starts with '\(text)'"
            }
            let shown =
                (0x21..<0x7F).contains(byte)
                ? "'\(Character(Unicode.Scalar(byte)))'" : String(format: "byte 0x%02X", byte)
            return "found \(shown) where \(expected) should be"
        }
    }
}
