/// One outgoing call: method, URL, headers and body, with the bounds of its answer and its times.
///
/// Its description names the method and the URL without credentials or query, and header names only: a token in
/// `Authorization` (or anywhere else in a header) never reaches a log or an error message.
public struct HTTPClientRequest: Sendable, CustomStringConvertible {
    public var method: String
    /// `http://` or `https://`; credentials in the URL are refused (send them in a header).
    public var url: String
    public var headers: [(name: String, value: String)]
    public var body: [UInt8]
    /// The most bytes of the answer's body kept; a larger answer is cut there and says so.
    public var maxResponseBytes: Int
    /// The most bytes of the answer's headers kept.
    public var maxHeaderBytes: Int
    /// Time to connect (TLS included).
    public var connectSeconds: Double
    /// Time for the whole call, from connecting to the last byte of the answer.
    public var totalSeconds: Double

    public init(
        _ method: String, _ url: String, headers: [(name: String, value: String)] = [], body: [UInt8] = [],
        maxResponseBytes: Int = 1024 * 1024, maxHeaderBytes: Int = 64 * 1024, connectSeconds: Double = 5,
        totalSeconds: Double = 30
    ) {
        self.method = method
        self.url = url
        self.headers = headers
        self.body = body
        self.maxResponseBytes = maxResponseBytes
        self.maxHeaderBytes = maxHeaderBytes
        self.connectSeconds = connectSeconds
        self.totalSeconds = totalSeconds
    }

    public var description: String {
        let names = headers.map(\.name).joined(separator: ", ")
        let shownMethod = method.utf8.allSatisfy(HTTPHeaders.isTokenByte) ? method : HTTPText.quoted(method)
        return "\(shownMethod) \(Self.redacted(url))" + (names.isEmpty ? "" : " (headers: \(names))")
    }

    /// `url` without what may be secret: the user and password, and the query (replaced by `?…`).
    public static func redacted(_ url: String) -> String {
        var text = Substring(url)
        var scheme = ""
        if let range = text.range(of: "://") {
            scheme = String(text[..<range.upperBound])
            text = text[range.upperBound...]
        }
        let authorityEnd = text.firstIndex { $0 == "/" || $0 == "?" || $0 == "#" } ?? text.endIndex
        var authority = text[..<authorityEnd]
        if let at = authority.lastIndex(of: "@") { authority = "…@" + authority[authority.index(after: at)...] }
        var rest = text[authorityEnd...]
        if let mark = rest.firstIndex(where: { $0 == "?" || $0 == "#" }) { rest = rest[..<mark] + "?…" }
        return HTTPText.printable(scheme + authority + rest, limit: 300)
    }
}

/// An answer to an outgoing call, each part bounded.
public struct HTTPClientResponse: Sendable {
    public var status: Int
    /// In the order sent; names as sent.
    public var headers: [(name: String, value: String)]
    public var body: [UInt8]
    /// The body was longer than `maxResponseBytes`: `body` is its start, and the rest was never read.
    public var bodyTruncated: Bool
    /// The headers were longer than `maxHeaderBytes`: those past it are left out.
    public var headersTruncated: Bool

    /// A header's first value, by name in any case.
    public func header(_ name: String) -> String? {
        headers.first { $0.name.lowercased() == name.lowercased() }?.value
    }

    public var isSuccess: Bool { (200..<300).contains(status) }
    public var bodyText: String { String(decoding: body, as: UTF8.self) }
}

/// Why an outgoing call has no answer.
public struct HTTPClientError: Error, Sendable, Equatable, CustomStringConvertible {
    public enum Kind: String, Sendable {
        /// The request itself is not one Pipe sends (scheme, credentials in the URL, a header).
        case invalidRequest = "invalid request"
        case connect = "could not connect"
        case timeout = "timed out"
        /// The server's certificate did not verify, or TLS failed.
        case tls = "TLS failed"
        case transfer = "transfer failed"
    }

    public var kind: Kind
    /// What happened, naming the request by its redacted description.
    public var message: String

    public init(_ kind: Kind, _ message: String) {
        self.kind = kind
        self.message = message
    }

    public var description: String { message }
}
