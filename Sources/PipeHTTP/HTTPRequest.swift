import Foundation

/// What a request says before its body: method, path, headers and who sent it.
public struct HTTPRequestHead: Sendable, Equatable {
    public var method: String
    /// The path as sent (percent escapes decoded), without the query string.
    public var path: String
    /// The query string's arguments, decoded; a name given twice keeps its first value.
    public var query: [String: String]
    /// Header names in lower case; a header sent twice keeps both values joined with `, `.
    public var headers: [String: String]
    /// Names (lower case) of the headers that were sent more than once.
    public var repeatedHeaders: Set<String>
    /// The peer's address (the reverse proxy's, behind one), e.g. `127.0.0.1`; `unix` on a Unix socket.
    public var remoteAddress: String
    /// Whether it came over the server's Unix socket (which only the reverse proxy can reach).
    public var viaUnixSocket: Bool
    /// When the request's headers were complete.
    public var receivedAt: Date

    public init(
        method: String, path: String, query: [String: String] = [:], headers: [String: String],
        repeatedHeaders: Set<String> = [], remoteAddress: String, viaUnixSocket: Bool = false, receivedAt: Date
    ) {
        self.method = method
        self.path = path
        self.query = query
        self.headers = headers
        self.repeatedHeaders = repeatedHeaders
        self.remoteAddress = remoteAddress
        self.viaUnixSocket = viaUnixSocket
        self.receivedAt = receivedAt
    }

    /// A header's value by name, in any case.
    public func header(_ name: String) -> String? { headers[name.lowercased()] }

    /// The media type of `Content-Type`, lower case and without parameters (`application/x-www-form-urlencoded`).
    public var mediaType: String? {
        header("content-type")?.split(separator: ";").first.map {
            $0.trimmingCharacters(in: .whitespaces).lowercased()
        }
    }
}

/// A whole request: its head and its raw body, kept byte for byte (the signature covers exactly these bytes).
public struct HTTPRequest: Sendable, Equatable {
    public var head: HTTPRequestHead
    public var body: [UInt8]

    public init(head: HTTPRequestHead, body: [UInt8]) {
        self.head = head
        self.body = body
    }
}
