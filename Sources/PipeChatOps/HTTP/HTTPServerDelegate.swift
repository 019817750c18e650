/// What an `HTTPServer` asks of the code that serves requests. Every method may be called from several threads at
/// once and must be thread-safe.
public protocol HTTPServerDelegate: AnyObject {
    /// Called on a libmicrohttpd thread as soon as a request's headers are in: an answer refuses the request before
    /// its body is read (wrong path, method or content type), `nil` lets it through.
    func screen(_ head: HTTPRequestHead) -> HTTPResponse?

    /// Called on one of the server's worker threads with a whole request; the answer must come quickly (the
    /// connection waits at most `HTTPServerLimits.answerSeconds`).
    func respond(to request: HTTPRequest) -> HTTPResponse

    /// A request the server itself refused or cut off (body too large, too slow, queue full, no answer in time),
    /// and those `screen` refused. `head` is `nil` when the headers never arrived; `status` is `nil` when the
    /// connection was closed without an answer.
    func refused(_ head: HTTPRequestHead?, remoteAddress: String, status: Int?, reason: String)
}
