import Foundation

/// Reads the XML property list format (Apple's `PropertyList-1.0.dtd`): a prolog, `<plist>` around one value, and
/// the elements `dict`, `key`, `array`, `string`, `integer`, `real`, `true`, `false`, `date` and `data`. Only what
/// plists use of XML is read: entities are the five predefined and character references, CDATA is allowed in text,
/// and anything else (another element, an external entity) is refused with its line and column.
struct XMLPropertyListReader {
    private let bytes: [UInt8]
    private let limits: PropertyListLimits
    private var position = 0
    private var valuesRead = 0

    init(_ bytes: [UInt8], limits: PropertyListLimits) {
        self.bytes = bytes
        self.limits = limits
    }

    mutating func read() throws -> PropertyListValue {
        if bytes.starts(with: [0xEF, 0xBB, 0xBF]) { position = 3 }
        try skipProlog()
        let root = try openTag()
        let value: PropertyListValue
        if root.name == "plist" {
            guard !root.selfClosing else { throw failure("an empty <plist/> holds no value") }
            value = try self.value(depth: 0)
            try skipMisc()
            try closeTag("plist")
        } else {
            // CoreFoundation also reads a bare value without <plist>.
            value = try self.value(opened: root, depth: 0)
        }
        try skipMisc()
        guard position == bytes.count else { throw failure("text after the property list") }
        return value
    }

    // MARK: - Values

    private mutating func value(depth: Int) throws -> PropertyListValue {
        try skipMisc()
        return try value(opened: try openTag(), depth: depth)
    }

    private mutating func value(opened tag: Tag, depth: Int) throws -> PropertyListValue {
        valuesRead += 1
        try limits.check(valuesRead: valuesRead, depth: depth)
        switch tag.name {
        case "true", "false":
            if !tag.selfClosing { try closeTag(tag.name) }
            return .boolean(tag.name == "true")
        case "string":
            return .string(try text(of: tag))
        case "integer":
            let text = try self.text(of: tag).trimmingCharacters(in: .whitespacesAndNewlines)
            guard let number = Self.integer(text) else { throw failure("\"\(text)\" is not an integer", at: tag) }
            return .integer(number)
        case "real":
            let text = try self.text(of: tag).trimmingCharacters(in: .whitespacesAndNewlines)
            guard let number = Double(text) else { throw failure("\"\(text)\" is not a real", at: tag) }
            return .real(number)
        case "date":
            let text = try self.text(of: tag).trimmingCharacters(in: .whitespacesAndNewlines)
            guard let date = Self.date(text) else {
                throw failure("\"\(text)\" is not a date (YYYY-MM-DDTHH:MM:SSZ)", at: tag)
            }
            return .date(date)
        case "data":
            let text = try self.text(of: tag).filter { !$0.isWhitespace }
            guard let decoded = Data(base64Encoded: text) else { throw failure("the data is not base64", at: tag) }
            return .data(Array(decoded))
        case "array":
            var items: [PropertyListValue] = []
            if tag.selfClosing { return .array(items) }
            try skipMisc()
            while try !atClosingTag() {
                items.append(try value(depth: depth + 1))
                try skipMisc()
            }
            try closeTag("array")
            return .array(items)
        case "dict":
            var entries: [String: PropertyListValue] = [:]
            if tag.selfClosing { return .dictionary(entries) }
            try skipMisc()
            while try !atClosingTag() {
                let keyTag = try openTag()
                guard keyTag.name == "key" else { throw failure("<\(keyTag.name)> where a <key> belongs", at: keyTag) }
                let key = try text(of: keyTag)
                entries[key] = try value(depth: depth + 1)
                try skipMisc()
            }
            try closeTag("dict")
            return .dictionary(entries)
        default:
            throw failure("<\(tag.name)> is not a property list element", at: tag)
        }
    }

    static func integer(_ text: String) -> Int64? {
        if text.hasPrefix("0x") || text.hasPrefix("0X") { return Int64(text.dropFirst(2), radix: 16) }
        if text.hasPrefix("-0x") || text.hasPrefix("-0X") { return Int64(text.dropFirst(3), radix: 16).map { -$0 } }
        return Int64(text)
    }

    static func date(_ text: String) -> Date? {
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime]
        return formatter.date(from: text)
    }

    // MARK: - Markup

    private struct Tag {
        let name: String
        let selfClosing: Bool
        let line: Int
        let column: Int
    }

    /// `<name attributes…>` or `<name …/>`; attributes are skipped (only `<plist version>` has any).
    private mutating func openTag() throws -> Tag {
        let (line, column) = location(of: position)
        guard peek("<"), position + 1 < bytes.count, bytes[position + 1] != UInt8(ascii: "/") else {
            throw failure("expected an element")
        }
        position += 1
        let name = readName()
        guard !name.isEmpty else { throw failure("expected an element name") }
        var quote: UInt8?
        while position < bytes.count {
            let byte = bytes[position]
            if let open = quote {
                if byte == open { quote = nil }
            } else if byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "'") {
                quote = byte
            } else if byte == UInt8(ascii: ">") {
                position += 1
                let selfClosing = bytes[position - 2] == UInt8(ascii: "/")
                return Tag(name: name, selfClosing: selfClosing, line: line, column: column)
            }
            position += 1
        }
        throw failure("the element <\(name)> is not closed")
    }

    private mutating func closeTag(_ name: String) throws {
        let expected = Array("</\(name)".utf8)
        guard bytes[position...].starts(with: expected) else { throw failure("expected </\(name)>") }
        position += expected.count
        skipWhitespace()
        guard peek(">") else { throw failure("expected > after </\(name)") }
        position += 1
    }

    private mutating func atClosingTag() throws -> Bool {
        guard position < bytes.count else { throw failure("the file ends inside an element") }
        return bytes[position...].starts(with: Array("</".utf8))
    }

    /// The text inside a `string`, `key`, `integer`… element, with entities and CDATA resolved, up to its end tag.
    private mutating func text(of tag: Tag) throws -> String {
        if tag.selfClosing { return "" }
        var text: [UInt8] = []
        while position < bytes.count {
            if bytes[position...].starts(with: Array("<![CDATA[".utf8)) {
                let body = position + 9
                guard let end = find(Array("]]>".utf8), from: body) else { throw failure("CDATA not closed") }
                text += bytes[body..<end]
                position = end + 3
            } else if bytes[position...].starts(with: Array("<!--".utf8)) {
                try skipComment()
            } else if peek("<") {
                try closeTag(tag.name)
                return String(decoding: text, as: UTF8.self)
            } else if peek("&") {
                text += try entity()
            } else {
                text.append(bytes[position])
                position += 1
            }
        }
        throw failure("<\(tag.name)> is not closed", at: tag)
    }

    private mutating func entity() throws -> [UInt8] {
        guard let end = find([UInt8(ascii: ";")], from: position), end - position <= 12 else {
            throw failure("an & that starts no entity")
        }
        let name = String(decoding: bytes[position + 1..<end], as: UTF8.self)
        let resolved: String?
        switch name {
        case "lt": resolved = "<"
        case "gt": resolved = ">"
        case "amp": resolved = "&"
        case "quot": resolved = "\""
        case "apos": resolved = "'"
        default:
            var scalar: UInt32?
            if name.hasPrefix("#x") {
                scalar = UInt32(name.dropFirst(2), radix: 16)
            } else if name.hasPrefix("#") {
                scalar = UInt32(name.dropFirst())
            }
            resolved = scalar.flatMap(Unicode.Scalar.init).map { String(Character($0)) }
        }
        guard let resolved else { throw failure("the entity &\(name); is not read") }
        position = end + 1
        return Array(resolved.utf8)
    }

    /// The XML declaration, comments, processing instructions and a DOCTYPE without an internal subset.
    private mutating func skipProlog() throws {
        while true {
            try skipMisc()
            guard bytes[position...].starts(with: Array("<!DOCTYPE".utf8)) else { return }
            guard let end = find([UInt8(ascii: ">")], from: position) else { throw failure("DOCTYPE not closed") }
            guard !bytes[position..<end].contains(UInt8(ascii: "[")) else {
                throw failure("a DOCTYPE with its own declarations (entities) is refused")
            }
            position = end + 1
        }
    }

    private mutating func skipMisc() throws {
        while true {
            skipWhitespace()
            if bytes[position...].starts(with: Array("<!--".utf8)) {
                try skipComment()
            } else if bytes[position...].starts(with: Array("<?".utf8)) {
                guard let end = find(Array("?>".utf8), from: position) else { throw failure("<? not closed") }
                position = end + 2
            } else {
                return
            }
        }
    }

    private mutating func skipComment() throws {
        guard let end = find(Array("-->".utf8), from: position + 4) else { throw failure("a comment is not closed") }
        position = end + 3
    }

    private mutating func skipWhitespace() {
        while position < bytes.count, [0x20, 0x09, 0x0A, 0x0D].contains(bytes[position]) { position += 1 }
    }

    private mutating func readName() -> String {
        let start = position
        while position < bytes.count {
            let byte = bytes[position]
            guard byte.isASCIILetterOrDigit || byte == UInt8(ascii: "-") || byte == UInt8(ascii: ":") else { break }
            position += 1
        }
        return String(decoding: bytes[start..<position], as: UTF8.self)
    }

    private func peek(_ character: Unicode.Scalar) -> Bool {
        position < bytes.count && bytes[position] == UInt8(ascii: character)
    }

    private func find(_ needle: [UInt8], from start: Int) -> Int? {
        guard start <= bytes.count - needle.count else { return nil }
        return (start...(bytes.count - needle.count)).first { bytes[$0..<$0 + needle.count].elementsEqual(needle) }
    }

    private func location(of offset: Int) -> (line: Int, column: Int) {
        var line = 1
        var lineStart = 0
        for index in 0..<min(offset, bytes.count) where bytes[index] == 0x0A {
            line += 1
            lineStart = index + 1
        }
        return (line, offset - lineStart + 1)
    }

    private func failure(_ reason: String) -> PropertyListError {
        let (line, column) = location(of: position)
        return .xml(line: line, column: column, reason)
    }

    private func failure(_ reason: String, at tag: Tag) -> PropertyListError {
        .xml(line: tag.line, column: tag.column, reason)
    }
}

extension UInt8 {
    fileprivate var isASCIILetterOrDigit: Bool {
        (0x30...0x39).contains(self) || (0x41...0x5A).contains(self) || (0x61...0x7A).contains(self)
    }
}
