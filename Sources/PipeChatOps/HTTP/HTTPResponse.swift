import Foundation

/// An answer: status, content type and body.
public struct HTTPResponse: Sendable, Equatable {
    public var status: Int
    public var contentType: String
    public var body: [UInt8]

    public init(status: Int, contentType: String = "text/plain; charset=utf-8", body: [UInt8]) {
        self.status = status
        self.contentType = contentType
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

    /// The body as text (for logs and tests).
    public var bodyText: String { String(decoding: body, as: UTF8.self) }
}
