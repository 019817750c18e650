/// What reports the requests a server refused or cut off (body too large, too slow, queue full, no answer in time,
/// no endpoint at the path). Called from several threads at once: must be thread-safe.
public protocol HTTPRefusalObserver: AnyObject {
    /// `head` is `nil` when the headers never arrived; `status` is `nil` when the connection was closed without an
    /// answer.
    func refused(_ head: HTTPRequestHead?, remoteAddress: String, status: Int?, reason: String)
}

/// The code behind one endpoint. Every method may be called from several threads at once and must be thread-safe.
public protocol HTTPHandler: HTTPRefusalObserver {
    /// Called on libmicrohttpd's thread as soon as a request's headers are in and its path, method, media type and
    /// length are the endpoint's: an answer refuses the request before its body is read, `nil` lets it through.
    func screen(_ head: HTTPRequestHead) -> HTTPResponse?

    /// Where the body goes as it arrives; `nil` (the default): collected whole and given to `respond(to:)`.
    func bodyReceiver(for head: HTTPRequestHead) -> HTTPBodyReceiver?

    /// Called on one of the server's worker threads with a whole request; the answer must come quickly (the
    /// connection waits at most the endpoint's `answerSeconds`). A streamed answer's producer runs on its own.
    func respond(to request: HTTPRequest) -> HTTPResponse
}

extension HTTPHandler {
    public func screen(_ head: HTTPRequestHead) -> HTTPResponse? { nil }
    public func bodyReceiver(for head: HTTPRequestHead) -> HTTPBodyReceiver? { nil }
}

/// Takes a request's body piece by piece as it arrives, never more than the endpoint's `maxBodyBytes` in all.
public protocol HTTPBodyReceiver: AnyObject {
    /// One piece, on libmicrohttpd's thread (keep it quick). An answer refuses the request: the rest of the body is
    /// read and dropped, then that answer is sent.
    func receive(_ piece: UnsafeRawBufferPointer) -> HTTPResponse?

    /// The whole body has arrived: the answer, on a worker thread.
    func finish(_ head: HTTPRequestHead) -> HTTPResponse
}
