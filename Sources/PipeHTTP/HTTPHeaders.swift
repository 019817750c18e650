/// Response headers that are valid by construction: a name is an HTTP token, a value holds no CR, LF, NUL or other
/// control character (a tab is allowed), so nothing taken from a request, a file or a forge can split a response or
/// add a header of its own. The headers that frame a message (`Content-Length`, `Transfer-Encoding`, `Connection`)
/// are the server's, and `Content-Type` is `HTTPResponse.contentType`.
public struct HTTPHeaders: Sendable, Equatable, Sequence {
    public private(set) var fields: [(name: String, value: String)] = []

    public init() {}

    /// Headers from name–value pairs, each validated.
    public init(_ pairs: [(String, String)]) throws(HTTPHeaderError) {
        for (name, value) in pairs { try add(name, value) }
    }

    /// Adds a header (a name may be given more than once).
    public mutating func add(_ name: String, _ value: String) throws(HTTPHeaderError) {
        try Self.validate(name: name, value: value)
        fields.append((name, value))
    }

    /// Sets a header, replacing any of the same name (in any case).
    public mutating func set(_ name: String, _ value: String) throws(HTTPHeaderError) {
        try Self.validate(name: name, value: value)
        fields.removeAll { $0.name.lowercased() == name.lowercased() }
        fields.append((name, value))
    }

    /// The first value of a header, by name in any case.
    public func value(_ name: String) -> String? {
        fields.first { $0.name.lowercased() == name.lowercased() }?.value
    }

    public func makeIterator() -> IndexingIterator<[(name: String, value: String)]> { fields.makeIterator() }

    public static func == (left: HTTPHeaders, right: HTTPHeaders) -> Bool {
        left.fields.elementsEqual(right.fields) { $0.name == $1.name && $0.value == $1.value }
    }

    /// Names the server writes itself.
    static let reserved: Set<String> = ["content-length", "transfer-encoding", "connection", "content-type"]

    static func validate(name: String, value: String) throws(HTTPHeaderError) {
        guard !name.isEmpty, name.utf8.allSatisfy(isTokenByte) else {
            throw HTTPHeaderError(
                "the header name \(HTTPText.quoted(name)) is not an HTTP token (letters, digits, !#$%&'*+-.^_`|~)")
        }
        guard !reserved.contains(name.lowercased()) else {
            throw HTTPHeaderError(
                "the header \(name) is written by the server itself (the content type is HTTPResponse.contentType)")
        }
        try validate(value: value, of: name)
    }

    /// A value is visible ASCII, spaces and tabs, or any byte of a UTF-8 character beyond ASCII.
    static func validate(value: String, of name: String) throws(HTTPHeaderError) {
        guard let bad = controlByte(in: value) else { return }
        throw HTTPHeaderError(
            "the value of header \(name) holds the control byte 0x\(String(bad, radix: 16, uppercase: true)) "
                + "(CR, LF and other control characters could split the response); remove it")
    }

    /// The first control byte of a header value (a tab is allowed).
    static func controlByte(in value: String) -> UInt8? {
        value.utf8.first { ($0 < 0x20 && $0 != 0x09) || $0 == 0x7F }
    }

    static func isTokenByte(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
            UInt8(ascii: "0")...UInt8(ascii: "9"):
            return true
        default: return Array("!#$%&'*+-.^_`|~".utf8).contains(byte)
        }
    }
}

/// A response header that would be unsafe or is not the caller's to set.
public struct HTTPHeaderError: Error, Sendable, Equatable, CustomStringConvertible {
    public var message: String

    public init(_ message: String) { self.message = message }

    public var description: String { message }
}
