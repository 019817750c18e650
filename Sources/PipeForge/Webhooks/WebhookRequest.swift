/// A webhook delivery as the HTTP server received it: the endpoint's path, every header in the order sent
/// (repeated ones kept, so that a repeated signature can be refused), and the raw body.
public struct WebhookRequest: Sendable, Equatable {
    public struct Header: Sendable, Equatable {
        public var name: String
        public var value: String

        public init(_ name: String, _ value: String) {
            self.name = name
            self.value = value
        }
    }

    public var path: String
    public var headers: [Header]
    /// The exact bytes received: signatures are over these, never over re-serialised JSON.
    public var body: [UInt8]

    public init(path: String, headers: [Header], body: [UInt8]) {
        self.path = path
        self.headers = headers
        self.body = body
    }

    /// Every value of the header `name` (compared without case, as HTTP does).
    public func values(_ name: String) -> [String] {
        let lowered = name.lowercased()
        return headers.filter { $0.name.lowercased() == lowered }.map(\.value)
    }

    /// The one value of `name`, `nil` when absent; a header sent twice is refused, since the two copies could
    /// be read differently by different parts.
    func single(_ name: String) throws(WebhookRefusal) -> String? {
        let found = values(name)
        guard found.count <= 1 else {
            throw WebhookRefusal(.malformed, "the \(name) header is sent \(found.count) times; a delivery carries one")
        }
        guard let value = found.first else { return nil }
        guard value.utf8.count <= WebhookLimits.headerValueBytes else {
            throw WebhookRefusal(
                .malformed,
                "the \(name) header is \(value.utf8.count) bytes, more than \(WebhookLimits.headerValueBytes)")
        }
        return value
    }
}
