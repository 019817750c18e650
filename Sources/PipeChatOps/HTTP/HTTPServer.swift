import CMicroHTTPD
import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// A small HTTP/1.1 server on libmicrohttpd: requests are screened when their headers are in, collected whole, and
/// handed through one `HTTPExchangeQueue` to a few worker threads that call the delegate.
///
/// Thread rule: libmicrohttpd calls in on its own threads (one per connection, plus its polling thread); the
/// request state it carries between calls belongs to that connection's thread. The table of open connections is
/// shared with the watchdog thread under a lock. C pointers never leave this file. The server lives until `stop()`
/// (its workers hold it), which must be called to close the port.
public final class HTTPServer: @unchecked Sendable {
    /// The port it listens on (the one the system chose, when started with port 0); 0 on a Unix socket.
    public private(set) var port: UInt16 = 0
    public let address: String
    public let listener: HTTPListener
    private let limits: HTTPServerLimits
    private var delegate: HTTPServerDelegate?
    private var daemon: OpaquePointer?
    private let queue: HTTPExchangeQueue
    private var workers: [Thread] = []
    private let finished = DispatchGroup()
    private let connections = ConnectionTable()
    private let stopLock = NSLock()
    private var stopped = false

    /// Starts listening on `address` (an IPv4 or IPv6 literal) and `port` (0: any free port).
    public convenience init(address: String, port: UInt16, limits: HTTPServerLimits, delegate: HTTPServerDelegate)
        throws
    {
        try self.init(listener: .tcp(address: address, port: port), limits: limits, delegate: delegate)
    }

    /// Starts listening on a TCP address or a Unix socket (a socket file left by an earlier server is replaced).
    public init(listener: HTTPListener, limits: HTTPServerLimits, delegate: HTTPServerDelegate) throws {
        self.listener = listener
        self.limits = limits
        self.delegate = delegate
        self.queue = HTTPExchangeQueue(capacity: limits.queueCapacity)
        var storage = sockaddr_storage()
        var listening: Int32 = -1
        let port: UInt16
        switch listener {
        case .tcp(let address, let given):
            self.address = address
            port = given
            guard Self.fill(&storage, address: address, port: port) else {
                throw HTTPServerError(
                    "'\(address)' is not an IP address to listen on; give one such as 127.0.0.1 or ::1 (names are "
                        + "not resolved)")
            }
        case .unixSocket(let path):
            self.address = path
            port = 0
            listening = try UnixSocketListener.listen(at: path)
        }
        let context = Unmanaged.passUnretained(self).toOpaque()
        // libmicrohttpd's connection timeout only measures idleness; the watchdog enforces the head and total times.
        let idle = UInt32(max(1, limits.requestSeconds.rounded(.up)))
        let started = withUnsafePointer(to: &storage) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { socketAddress in
                pipe_mhd_start(
                    socketAddress, listening, port, limits.maxHeaderBytes + 8192,
                    UInt32(limits.maxConnections + HTTPServerLimits.reserveConnections),
                    UInt32(max(0, limits.maxConnectionsPerPeer)), idle, httpAccessHandler, httpRequestCompleted,
                    httpConnectionNotified, context)
            }
        }
        guard let started else {
            let reason = String(cString: strerror(errno))
            if listening >= 0 { close(listening) }
            throw HTTPServerError(
                "could not listen on \(address)\(listening >= 0 ? "" : " port \(port)"): \(reason); is another "
                    + "process using it?")
        }
        daemon = started
        self.port = listening >= 0 ? 0 : pipe_mhd_bound_port(started)
        for index in 0..<max(1, limits.workers) {
            finished.enter()
            let worker = Thread { [queue, finished] in
                while let exchange = queue.take() {
                    let response = self.currentDelegate?.respond(to: exchange.request) ?? .text(503, "shutting down")
                    exchange.answer(response)
                }
                finished.leave()
            }
            worker.name = "pipe-http-worker-\(index)"
            workers.append(worker)
            worker.start()
        }
        connections.startWatchdog(head: limits.headSeconds, total: limits.requestSeconds) {
            [weak self] cut, headMissing in
            let reason =
                headMissing
                ? "cut off: no complete request head within \(Self.seconds(limits.headSeconds)) (a slow or stalled "
                    + "client)"
                : "cut off: the request took more than \(Self.seconds(limits.requestSeconds)) (a slow or stalled "
                    + "client)"
            self?.currentDelegate?.refused(cut.head, remoteAddress: cut.remoteAddress, status: nil, reason: reason)
        }
    }

    private var currentDelegate: HTTPServerDelegate? {
        stopLock.lock()
        defer { stopLock.unlock() }
        return delegate
    }

    /// Stops accepting, waits for open connections and the workers, and lets go of the delegate.
    public func stop() {
        stopLock.lock()
        guard !stopped else {
            stopLock.unlock()
            return
        }
        stopped = true
        stopLock.unlock()
        if let daemon { MHD_stop_daemon(daemon) }
        daemon = nil
        if case .unixSocket(let path) = listener { unlink(path) }
        queue.close()
        finished.wait()
        connections.stopWatchdog()
        stopLock.lock()
        delegate = nil
        stopLock.unlock()
    }

    // MARK: - libmicrohttpd's calls

    /// One call of the access handler: the first with the headers, then one per piece of body, then a last one.
    fileprivate func access(
        _ connection: OpaquePointer, url: String, method: String, data: UnsafePointer<CChar>?,
        size: UnsafeMutablePointer<Int>, context: UnsafeMutablePointer<UnsafeMutableRawPointer?>
    ) -> MHD_Result {
        guard let stored = context.pointee else {
            let (headers, repeated) = Self.headers(of: connection)
            let head = HTTPRequestHead(
                method: method, path: String(url.prefix { $0 != "?" }), headers: headers, repeatedHeaders: repeated,
                remoteAddress: peerAddress(of: connection), viaUnixSocket: isUnixSocket, receivedAt: Date())
            let state = RequestState(head: head)
            context.pointee = Unmanaged.passRetained(state).toOpaque()
            connections.requestBegan(connection, state: state)
            if let length = head.header("content-length").flatMap({ Int($0.trimmingCharacters(in: .whitespaces)) }),
                length > limits.maxBodyBytes
            {
                return refuse(
                    state, on: connection, .text(413, "the body is larger than \(limits.maxBodyBytes) bytes"),
                    reason: "body of \(length) bytes is over the limit of \(limits.maxBodyBytes)")
            }
            if let refusal = currentDelegate?.screen(head) {
                state.responded = true
                return send(refusal, on: connection)
            }
            return .YES
        }
        let state = Unmanaged<RequestState>.fromOpaque(stored).takeUnretainedValue()
        if state.responded { return .YES }
        if size.pointee > 0, let data {
            let count = size.pointee
            if state.body.count + count > limits.maxBodyBytes {
                // Sent without a length (chunked): read to the end without keeping it, then refuse.
                state.tooLarge = true
                state.body = []
            } else if !state.tooLarge {
                data.withMemoryRebound(to: UInt8.self, capacity: count) {
                    state.body.append(contentsOf: UnsafeBufferPointer(start: $0, count: count))
                }
            }
            size.pointee = 0
            return .YES
        }
        if state.tooLarge {
            return refuse(
                state, on: connection, .text(413, "the body is larger than \(limits.maxBodyBytes) bytes"),
                reason: "body over the limit of \(limits.maxBodyBytes) bytes")
        }
        let request = HTTPRequest(head: state.head, body: state.body)
        guard let exchange = queue.put(request) else {
            return refuse(
                state, on: connection, .text(503, "too many requests waiting; try again in a moment"),
                reason: "the request queue is full (\(limits.queueCapacity) waiting)")
        }
        let left = connections.secondsLeft(connection, limit: limits.requestSeconds) - 0.2
        guard let response = exchange.wait(seconds: min(limits.answerSeconds, left)) else {
            return refuse(
                state, on: connection, .text(503, "no answer in time; try again in a moment"),
                reason: "no answer within \(Self.seconds(min(limits.answerSeconds, left)))")
        }
        state.responded = true
        return send(response, on: connection)
    }

    fileprivate func completed(
        _ connection: OpaquePointer, context: UnsafeMutablePointer<UnsafeMutableRawPointer?>?,
        termination: MHD_RequestTerminationCode
    ) {
        connections.requestEnded(connection)
        guard let context, let stored = context.pointee else { return }
        context.pointee = nil
        let state = Unmanaged<RequestState>.fromOpaque(stored).takeRetainedValue()
        let cut = connections.wasCut(connection)
        guard !state.responded, !cut, termination != .REQUEST_TERMINATED_DAEMON_SHUTDOWN else { return }
        let why: String
        switch termination {
        case .REQUEST_TERMINATED_TIMEOUT_REACHED: why = "the client went silent"
        case .REQUEST_TERMINATED_CLIENT_ABORT, .REQUEST_TERMINATED_READ_ERROR:
            why = "the client closed the connection before the request was complete"
        default: why = "the connection failed before the request was complete"
        }
        currentDelegate?.refused(state.head, remoteAddress: state.head.remoteAddress, status: nil, reason: why)
    }

    fileprivate func notified(_ connection: OpaquePointer, code: MHD_ConnectionNotificationCode) {
        if code == .CONNECTION_NOTIFY_STARTED {
            let cut = connections.opened(
                connection, descriptor: pipe_mhd_connection_fd(connection),
                remoteAddress: peerAddress(of: connection), limit: limits.maxConnections)
            if let cut {
                currentDelegate?.refused(
                    nil, remoteAddress: cut.remoteAddress, status: nil,
                    reason: "cut off: \(limits.maxConnections) connections were open and this one had sent no "
                        + "request head")
            }
        } else if let peer = connections.closed(connection) {
            currentDelegate?.refused(
                nil, remoteAddress: peer, status: nil,
                reason: "the connection closed before a complete request head arrived (a head over the limit is "
                    + "answered 431 by libmicrohttpd)")
        }
    }

    // MARK: - Answers

    private func refuse(
        _ state: RequestState, on connection: OpaquePointer, _ response: HTTPResponse, reason: String
    ) -> MHD_Result {
        state.responded = true
        currentDelegate?.refused(
            state.head, remoteAddress: state.head.remoteAddress, status: response.status, reason: reason)
        return send(response, on: connection)
    }

    private func send(_ response: HTTPResponse, on connection: OpaquePointer) -> MHD_Result {
        let created = response.body.withUnsafeBytes { bytes in
            MHD_create_response_from_buffer(
                bytes.count, UnsafeMutableRawPointer(mutating: bytes.baseAddress), .RESPMEM_MUST_COPY)
        }
        guard let created else { return .NO }
        defer { MHD_destroy_response(created) }
        _ = MHD_add_response_header(created, "Content-Type", response.contentType)
        _ = MHD_add_response_header(created, "Cache-Control", "no-store")
        return MHD_queue_response(connection, UInt32(response.status), created)
    }

    // MARK: - Helpers

    private static func headers(of connection: OpaquePointer) -> ([String: String], Set<String>) {
        let collected = HeaderCollector()
        let context = Unmanaged.passUnretained(collected).toOpaque()
        _ = MHD_get_connection_values(connection, .HEADER_KIND, httpHeaderIterator, context)
        return (collected.headers, collected.repeated)
    }

    private var isUnixSocket: Bool {
        if case .unixSocket = listener { return true }
        return false
    }

    private func peerAddress(of connection: OpaquePointer) -> String {
        if isUnixSocket { return "unix" }
        guard let address = pipe_mhd_client_address(connection) else { return "unknown" }
        var host = [CChar](repeating: 0, count: Int(NI_MAXHOST))
        let length = socklen_t(
            Int32(address.pointee.sa_family) == AF_INET6
                ? MemoryLayout<sockaddr_in6>.size : MemoryLayout<sockaddr_in>.size)
        guard getnameinfo(address, length, &host, socklen_t(host.count), nil, 0, NI_NUMERICHOST) == 0 else {
            return "unknown"
        }
        return String(cString: host)
    }

    private static func fill(_ storage: inout sockaddr_storage, address: String, port: UInt16) -> Bool {
        var v4 = in_addr()
        if inet_pton(AF_INET, address, &v4) == 1 {
            withUnsafeMutablePointer(to: &storage) { pointer in
                pointer.withMemoryRebound(to: sockaddr_in.self, capacity: 1) {
                    $0.pointee.sin_family = sa_family_t(AF_INET)
                    $0.pointee.sin_port = port.bigEndian
                    $0.pointee.sin_addr = v4
                }
            }
            return true
        }
        var v6 = in6_addr()
        if inet_pton(AF_INET6, address, &v6) == 1 {
            withUnsafeMutablePointer(to: &storage) { pointer in
                pointer.withMemoryRebound(to: sockaddr_in6.self, capacity: 1) {
                    $0.pointee.sin6_family = sa_family_t(AF_INET6)
                    $0.pointee.sin6_port = port.bigEndian
                    $0.pointee.sin6_addr = v6
                }
            }
            return true
        }
        return false
    }

    static func seconds(_ value: Double) -> String { String(format: "%.1f s", value) }
}

/// One request between libmicrohttpd's calls: its head, the body so far, and whether it was answered.
final class RequestState {
    let head: HTTPRequestHead
    var body: [UInt8] = []
    var tooLarge = false
    var responded = false

    init(head: HTTPRequestHead) { self.head = head }
}

/// Collects a request's headers from libmicrohttpd's iterator.
private final class HeaderCollector {
    var headers: [String: String] = [:]
    var repeated: Set<String> = []
}

private func httpHeaderIterator(
    _ context: UnsafeMutableRawPointer?, _ kind: MHD_ValueKind, _ key: UnsafePointer<CChar>?,
    _ value: UnsafePointer<CChar>?
) -> MHD_Result {
    guard let context, let key else { return .YES }
    let collector = Unmanaged<HeaderCollector>.fromOpaque(context).takeUnretainedValue()
    let name = String(cString: key).lowercased()
    let text = value.map { String(cString: $0) } ?? ""
    if collector.headers[name] != nil { collector.repeated.insert(name) }
    collector.headers[name] = collector.headers[name].map { $0 + ", " + text } ?? text
    return .YES
}

private func httpAccessHandler(
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

private func httpRequestCompleted(
    _ context: UnsafeMutableRawPointer?, _ connection: OpaquePointer?,
    _ requestContext: UnsafeMutablePointer<UnsafeMutableRawPointer?>?, _ termination: MHD_RequestTerminationCode
) {
    guard let context, let connection else { return }
    let server = Unmanaged<HTTPServer>.fromOpaque(context).takeUnretainedValue()
    server.completed(connection, context: requestContext, termination: termination)
}

private func httpConnectionNotified(
    _ context: UnsafeMutableRawPointer?, _ connection: OpaquePointer?,
    _ socketContext: UnsafeMutablePointer<UnsafeMutableRawPointer?>?, _ code: MHD_ConnectionNotificationCode
) {
    guard let context, let connection else { return }
    let server = Unmanaged<HTTPServer>.fromOpaque(context).takeUnretainedValue()
    server.notified(connection, code: code)
}
