import Foundation

/// An answer: status, content type, headers and a body, either whole or produced as it goes.
public struct HTTPResponse: Sendable, Equatable {
    public var status: Int
    public var contentType: String
    /// Headers beyond the content type. Without a `Cache-Control` of its own the answer says `no-store`.
    public var headers: HTTPHeaders
    public var body: [UInt8]
    /// When set, the body is what this writes, sent as it writes it (`body` is not sent).
    public var producer: HTTPResponseProducer?

    public init(
        status: Int, contentType: String = "text/plain; charset=utf-8", headers: HTTPHeaders = HTTPHeaders(),
        body: [UInt8]
    ) {
        self.status = status
        self.contentType = contentType
        self.headers = headers
        self.body = body
    }

    /// A plain-text answer (one line, ending in a newline).
    public static func text(_ status: Int, _ text: String) -> HTTPResponse {
        HTTPResponse(status: status, body: Array((text.hasSuffix("\n") ? text : text + "\n").utf8))
    }

    /// A JSON answer.
    public static func json(_ status: Int, _ object: [String: Any]) -> HTTPResponse {
        let data =
            (try? JSONSerialization.data(withJSONObject: object, options: [.sortedKeys, .withoutEscapingSlashes]))
            ?? Data("{}".utf8)
        return HTTPResponse(status: status, contentType: "application/json", body: Array(data))
    }

    /// An answer whose body `produce` writes on a thread of its own while the client reads it (a log followed
    /// live, server-sent events). `write` waits while `bufferBytes` are unread, and fails once the client has gone.
    public static func streamed(
        _ status: Int, contentType: String, headers: HTTPHeaders = HTTPHeaders(), bufferBytes: Int = 64 * 1024,
        produce: @escaping @Sendable (HTTPResponseStream) -> Void
    ) -> HTTPResponse {
        var response = HTTPResponse(status: status, contentType: contentType, headers: headers, body: [])
        response.producer = HTTPResponseProducer(bufferBytes: bufferBytes, produce: produce)
        return response
    }

    /// This answer with one more header.
    public func adding(_ name: String, _ value: String) throws(HTTPHeaderError) -> HTTPResponse {
        var copy = self
        try copy.headers.add(name, value)
        return copy
    }

    /// The body as text (for logs and tests).
    public var bodyText: String { String(decoding: body, as: UTF8.self) }
}

/// What writes a streamed answer's body; compared by identity.
public final class HTTPResponseProducer: Sendable, Equatable {
    let bufferBytes: Int
    let produce: @Sendable (HTTPResponseStream) -> Void

    init(bufferBytes: Int, produce: @escaping @Sendable (HTTPResponseStream) -> Void) {
        self.bufferBytes = max(1, bufferBytes)
        self.produce = produce
    }

    public static func == (left: HTTPResponseProducer, right: HTTPResponseProducer) -> Bool { left === right }
}
