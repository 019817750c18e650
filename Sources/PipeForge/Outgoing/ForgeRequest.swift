/// One request to a forge's REST API, as a value: the sender joins `path` to the forge's API base URL
/// (`https://api.github.com`, `https://<host>/api/v3`, `https://<host>/api/v1`, `https://<host>/api/v4`) and sends it.
///
/// Every path segment and query value is already percent-encoded, so the sender never encodes again.
public struct ForgeRequest: Sendable, Equatable {
    public enum Method: String, Sendable {
        case get = "GET"
        case post = "POST"
        case patch = "PATCH"
        case put = "PUT"
    }

    public var method: Method
    /// Starts with `/`, relative to the API base, every segment encoded.
    public var path: String
    /// Names and values, unencoded (`url(apiBase:)` and `target` encode them).
    public var query: [(String, String)]
    public var headers: [(String, String)]
    public var body: ForgeJSON?

    public init(
        method: Method, path: String, query: [(String, String)] = [], headers: [(String, String)] = [],
        body: ForgeJSON? = nil
    ) {
        self.method = method
        self.path = path
        self.query = query
        self.headers = headers
        self.body = body
    }

    public static func == (lhs: ForgeRequest, rhs: ForgeRequest) -> Bool {
        lhs.method == rhs.method && lhs.path == rhs.path && lhs.body == rhs.body
            && lhs.query.elementsEqual(rhs.query, by: ==) && lhs.headers.elementsEqual(rhs.headers, by: ==)
    }

    /// The path with its encoded query, as it goes on the request line.
    public var target: String {
        guard !query.isEmpty else { return path }
        return path + "?"
            + query.map { ForgePath.encode($0.0) + "=" + ForgePath.encode($0.1) }.joined(separator: "&")
    }

    /// The whole URL under `apiBase` (a trailing `/` on the base is ignored).
    public func url(apiBase: String) -> String {
        (apiBase.hasSuffix("/") ? String(apiBase.dropLast()) : apiBase) + target
    }

    /// The value of header `name` (case-insensitive).
    public func header(_ name: String) -> String? {
        headers.first { $0.0.lowercased() == name.lowercased() }?.1
    }

    /// The same request with `credential`'s header added.
    public func authorized(by credential: ForgeCredential) -> ForgeRequest {
        var copy = self
        copy.headers.append(credential.header)
        return copy
    }
}

/// A forge's answer, as a value: the status, the headers as received, the body's bytes.
public struct ForgeResponse: Sendable, Equatable {
    public var status: Int
    public var headers: [(String, String)]
    public var body: [UInt8]

    public init(status: Int, headers: [(String, String)] = [], body: [UInt8] = []) {
        self.status = status
        self.headers = headers
        self.body = body
    }

    public static func == (lhs: ForgeResponse, rhs: ForgeResponse) -> Bool {
        lhs.status == rhs.status && lhs.body == rhs.body && lhs.headers.elementsEqual(rhs.headers, by: ==)
    }

    /// The value of header `name` (case-insensitive; the first when repeated).
    public func header(_ name: String) -> String? {
        headers.first { $0.0.lowercased() == name.lowercased() }?.1
    }

    /// The body read as JSON, or nil.
    public var json: ForgeJSON? { ForgeJSON.decode(body) }
}
