import CMicroHTTPD
import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// libmicrohttpd's calls about requests and connections.
extension HTTPServer {
    /// One call of the access handler: the first with the headers, then one per piece of body, then a last one.
    func access(
        _ connection: OpaquePointer, url: String, method: String, data: UnsafePointer<CChar>?,
        size: UnsafeMutablePointer<Int>, context: UnsafeMutablePointer<UnsafeMutableRawPointer?>
    ) -> MHD_Result {
        guard let stored = context.pointee else {
            return begin(connection, url: url, method: method, context: context)
        }
        let state = Unmanaged<RequestState>.fromOpaque(stored).takeUnretainedValue()
        if state.responded { return .YES }
        if size.pointee > 0, let data {
            receive(UnsafeRawBufferPointer(start: data, count: size.pointee), into: state)
            size.pointee = 0
            return .YES
        }
        let handler = state.endpoint?.handler
        if state.tooLarge {
            return refuse(
                state, on: connection, .text(413, "the body is larger than \(state.limits.maxBodyBytes) bytes"),
                reason: "body over the limit of \(state.limits.maxBodyBytes) bytes")
        }
        if let refusal = state.refusal {
            state.responded = true
            return send(refusal, on: connection, state: state)
        }
        let work: () -> HTTPResponse
        if let receiver = state.receiver {
            let head = state.head
            work = { receiver.finish(head) }
        } else if let handler {
            let request = HTTPRequest(head: state.head, body: state.body)
            state.body = []
            work = { handler.respond(to: request) }
        } else {
            work = { .text(503, "shutting down") }
        }
        guard let exchange = queue.put(work) else {
            return refuse(
                state, on: connection, Self.busy("too many requests waiting; try again in a moment"),
                reason: "the request queue is full (\(limits.queueCapacity) waiting)")
        }
        let wait = min(
            state.limits.answerSeconds, connections.secondsLeft(connection, limit: state.limits.requestSeconds) - 0.2)
        guard let response = exchange.wait(seconds: wait) else {
            return refuse(
                state, on: connection, Self.busy("no answer in time; try again in a moment"),
                reason: "no answer within \(Self.seconds(wait))")
        }
        state.responded = true
        return send(response, on: connection, state: state)
    }

    /// The first call: the head is in. Routes it, and answers at once what the route or the endpoint refuses.
    private func begin(
        _ connection: OpaquePointer, url: String, method: String,
        context: UnsafeMutablePointer<UnsafeMutableRawPointer?>
    ) -> MHD_Result {
        let (headers, repeated) = HTTPPeer.values(of: connection, kind: .HEADER_KIND)
        let query = HTTPPeer.values(of: connection, kind: .GET_ARGUMENT_KIND).0
        let head = HTTPRequestHead(
            method: method, path: String(url.prefix { $0 != "?" }), query: query, headers: headers,
            repeatedHeaders: repeated, remoteAddress: peerAddress(of: connection), viaUnixSocket: isUnixSocket,
            receivedAt: Date())
        let state = RequestState(head: head, limits: limits.endpointLimits)
        context.pointee = Unmanaged.passRetained(state).toOpaque()
        connections.requestBegan(connection, state: state)
        guard let router = currentRouter else {
            state.responded = true
            return send(Self.busy("the server is stopping"), on: connection, state: state)
        }
        switch router.route(head) {
        case .refused(let response, let reason, let endpoint):
            state.endpoint = endpoint
            return refuse(state, on: connection, response, reason: reason)
        case .endpoint(let endpoint):
            state.endpoint = endpoint
            state.limits = endpoint.limits
            if endpoint.limits.requestSeconds != limits.requestSeconds {
                _ = pipe_mhd_set_idle_timeout(connection, UInt32(max(1, endpoint.limits.requestSeconds.rounded(.up))))
            }
            if let refusal = endpoint.handler.screen(head) {
                state.responded = true
                return send(refusal, on: connection, state: state)
            }
            state.receiver = endpoint.handler.bodyReceiver(for: head)
            return .YES
        }
    }

    /// A piece of body: to the endpoint's receiver or the collected body, never past the endpoint's limit.
    private func receive(_ piece: UnsafeRawBufferPointer, into state: RequestState) {
        state.received += piece.count
        guard !state.tooLarge, state.refusal == nil else { return }
        if state.received > state.limits.maxBodyBytes {
            // Sent without a length (chunked): read to the end without keeping it, then refuse.
            state.tooLarge = true
            state.body = []
        } else if let receiver = state.receiver {
            state.refusal = receiver.receive(piece)
        } else {
            state.body.append(contentsOf: piece)
        }
    }

    func completed(
        _ connection: OpaquePointer, context: UnsafeMutablePointer<UnsafeMutableRawPointer?>?,
        termination: MHD_RequestTerminationCode
    ) {
        connections.requestEnded(connection)
        guard let context, let stored = context.pointee else { return }
        context.pointee = nil
        let state = Unmanaged<RequestState>.fromOpaque(stored).takeRetainedValue()
        state.stream?.close()
        let cut = connections.wasCut(connection)
        guard !cut, termination != .REQUEST_TERMINATED_DAEMON_SHUTDOWN,
            !state.responded || (state.stream != nil && termination != .REQUEST_TERMINATED_COMPLETED_OK)
        else { return }
        let why: String
        switch termination {
        case _ where state.stream != nil: why = "the client went away during the streamed answer"
        case .REQUEST_TERMINATED_TIMEOUT_REACHED: why = "the client went silent"
        case .REQUEST_TERMINATED_CLIENT_ABORT, .REQUEST_TERMINATED_READ_ERROR:
            why = "the client closed the connection before the request was complete"
        default: why = "the connection failed before the request was complete"
        }
        refusalObserver(for: state.endpoint)?.refused(
            state.head, remoteAddress: state.head.remoteAddress, status: nil, reason: why)
    }

    func notified(_ connection: OpaquePointer, code: MHD_ConnectionNotificationCode) {
        if code == .CONNECTION_NOTIFY_STARTED {
            let cut = connections.opened(
                connection, descriptor: pipe_mhd_connection_fd(connection),
                remoteAddress: peerAddress(of: connection), limit: limits.maxConnections)
            if let cut {
                refusalObserver(for: nil)?.refused(
                    nil, remoteAddress: cut.remoteAddress, status: nil,
                    reason: "cut off: \(limits.maxConnections) connections were open and this one had sent no "
                        + "request head")
            }
        } else if let peer = connections.closed(connection) {
            refusalObserver(for: nil)?.refused(
                nil, remoteAddress: peer, status: nil,
                reason: "the connection closed before a complete request head arrived (a head over the limit is "
                    + "answered 431 by libmicrohttpd)")
        }
    }

    func peerAddress(of connection: OpaquePointer) -> String {
        isUnixSocket ? "unix" : HTTPPeer.address(of: connection)
    }

    /// A 503 that says when to try again.
    static func busy(_ text: String) -> HTTPResponse {
        var response = HTTPResponse.text(503, text)
        try? response.headers.set("Retry-After", "1")
        return response
    }
}

func httpAccessHandler(
    _ context: UnsafeMutableRawPointer?, _ connection: OpaquePointer?, _ url: UnsafePointer<CChar>?,
    _ method: UnsafePointer<CChar>?, _ version: UnsafePointer<CChar>?, _ data: UnsafePointer<CChar>?,
    _ size: UnsafeMutablePointer<Int>?, _ requestContext: UnsafeMutablePointer<UnsafeMutableRawPointer?>?
) -> MHD_Result {
    guard let context, let connection, let size, let requestContext else { return .NO }
    let server = Unmanaged<HTTPServer>.fromOpaque(context).takeUnretainedValue()
    return server.access(
        connection, url: url.map { String(cString: $0) } ?? "/", method: method.map { String(cString: $0) } ?? "",
        data: data, size: size, context: requestContext)
}

func httpRequestCompleted(
    _ context: UnsafeMutableRawPointer?, _ connection: OpaquePointer?,
    _ requestContext: UnsafeMutablePointer<UnsafeMutableRawPointer?>?, _ termination: MHD_RequestTerminationCode
) {
    guard let context, let connection else { return }
    let server = Unmanaged<HTTPServer>.fromOpaque(context).takeUnretainedValue()
    server.completed(connection, context: requestContext, termination: termination)
}

func httpConnectionNotified(
    _ context: UnsafeMutableRawPointer?, _ connection: OpaquePointer?,
    _ socketContext: UnsafeMutablePointer<UnsafeMutableRawPointer?>?, _ code: MHD_ConnectionNotificationCode
) {
    guard let context, let connection else { return }
    let server = Unmanaged<HTTPServer>.fromOpaque(context).takeUnretainedValue()
    server.notified(connection, code: code)
}
