/// A request as the outbox keeps it: everything but the credential, which is added when it is sent, so no token is
/// ever written to the run store.
public enum StoredForgeRequest {
    /// The request as a JSON object (`method`, `path`, `query`, `headers`, `body`).
    public static func encode(_ request: ForgeRequest) -> String {
        let headers = request.headers.filter { !ForgeRequest.isCredentialHeader($0.0) }
        let object: ForgeJSON = .object([
            ("method", .string(request.method.rawValue)),
            ("path", .string(request.path)),
            ("query", .array(request.query.map { .array([.string($0.0), .string($0.1)]) })),
            ("headers", .array(headers.map { .array([.string($0.0), .string($0.1)]) })),
            ("body", request.body ?? .null),
        ])
        return String(decoding: object.encoded, as: UTF8.self)
    }

    /// The request `encode` wrote; `nil` for anything else.
    public static func decode(_ text: String) -> ForgeRequest? {
        guard let object = ForgeJSON.decode(Array(text.utf8)),
            let method = object["method"]?.stringValue.flatMap(ForgeRequest.Method.init(rawValue:)),
            let path = object["path"]?.stringValue, path.hasPrefix("/")
        else { return nil }
        func pairs(_ key: String) -> [(String, String)]? {
            guard let items = object[key]?.arrayValue else { return nil }
            var result: [(String, String)] = []
            for item in items {
                guard let pair = item.arrayValue, pair.count == 2, let name = pair[0].stringValue,
                    let value = pair[1].stringValue
                else { return nil }
                result.append((name, value))
            }
            return result
        }
        guard let query = pairs("query"), let headers = pairs("headers") else { return nil }
        let body = object["body"].flatMap { $0 == .null ? nil : $0 }
        return ForgeRequest(method: method, path: path, query: query, headers: headers, body: body)
    }
}

extension ForgeRequest {
    /// Headers that carry a credential (never stored, never logged).
    static func isCredentialHeader(_ name: String) -> Bool {
        ["authorization", "private-token"].contains(name.lowercased())
    }
}
