/// Decodes an `application/x-www-form-urlencoded` body: `a=1&b=two+words&c=%2F`.
public enum FormDecoder {
    /// Why a body is not a form.
    public struct Failure: Error, Sendable, Equatable, CustomStringConvertible {
        public var message: String
        public var description: String { message }
    }

    /// The fields in order. A field given twice, a bad `%` escape or bytes that are not UTF-8 refuse the whole
    /// body: a request that can be read two ways is not guessed at.
    public static func decode(_ body: [UInt8]) throws(Failure) -> [(name: String, value: String)] {
        var fields: [(name: String, value: String)] = []
        var seen: Set<String> = []
        for part in body.split(separator: UInt8(ascii: "&"), omittingEmptySubsequences: true) {
            let pieces = part.split(separator: UInt8(ascii: "="), maxSplits: 1, omittingEmptySubsequences: false)
            let name = try unescape(Array(pieces[0]))
            let value = pieces.count > 1 ? try unescape(Array(pieces[1])) : ""
            guard !name.isEmpty else { throw Failure(message: "a form field has no name") }
            guard seen.insert(name).inserted else { throw Failure(message: "the form field '\(name)' is given twice") }
            fields.append((name, value))
        }
        return fields
    }

    /// The fields by name.
    public static func dictionary(_ body: [UInt8]) throws(Failure) -> [String: String] {
        var result: [String: String] = [:]
        for field in try decode(body) { result[field.name] = field.value }
        return result
    }

    private static func unescape(_ bytes: [UInt8]) throws(Failure) -> String {
        var output: [UInt8] = []
        output.reserveCapacity(bytes.count)
        var index = 0
        while index < bytes.count {
            let byte = bytes[index]
            if byte == UInt8(ascii: "+") {
                output.append(UInt8(ascii: " "))
            } else if byte == UInt8(ascii: "%") {
                guard index + 2 < bytes.count, let high = hexValue(bytes[index + 1]),
                    let low = hexValue(bytes[index + 2])
                else { throw Failure(message: "a form field has a broken %-escape") }
                output.append(high << 4 | low)
                index += 2
            } else {
                output.append(byte)
            }
            index += 1
        }
        guard let text = String(validating: output, as: UTF8.self) else {
            throw Failure(message: "a form field is not UTF-8 text")
        }
        return text
    }

    private static func hexValue(_ byte: UInt8) -> UInt8? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): return byte - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): return byte - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): return byte - UInt8(ascii: "A") + 10
        default: return nil
        }
    }
}
