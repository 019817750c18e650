import CMicroHTTPD
import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// A small HTTP/1.1 server on libmicrohttpd with endpoints mounted by path. Each request is routed when its head is
/// in (404, 405, 415 and 413 are answered before a byte of the body is read), its body goes to its endpoint within
/// the endpoint's limit, and the answer is made by a few worker threads fed through one `HTTPExchangeQueue`.
///
/// Thread rule: libmicrohttpd calls in on its own threads (one per connection, plus its polling thread); the
/// request state it carries between calls belongs to that connection's thread. The table of open connections is
/// shared with the watchdog thread under a lock. C pointers never leave this module. The server lives until
/// `stop()` (its workers hold it), which must be called to close the port.
public final class HTTPServer: @unchecked Sendable {
    /// The port it listens on (the one the system chose, when started with port 0); 0 on a Unix socket.
    public private(set) var port: UInt16 = 0
    public let address: String
    public let listener: HTTPListener
    let limits: HTTPServerLimits
    private var router: HTTPRouter?
    private var observer: HTTPRefusalObserver?
    private var daemon: OpaquePointer?
    let queue: HTTPExchangeQueue
    private var workers: [Thread] = []
    private let finished = DispatchGroup()
    let connections = ConnectionTable()
    let producers = DispatchGroup()
    private let stopLock = NSLock()
    private var stopped = false

    /// Starts listening on `address` (an IPv4 or IPv6 literal) and `port` (0: any free port), with `delegate`
    /// serving every path, method and media type within `limits`.
    public convenience init(address: String, port: UInt16, limits: HTTPServerLimits, delegate: HTTPHandler)
        throws
    {
        try self.init(listener: .tcp(address: address, port: port), limits: limits, delegate: delegate)
    }

    /// Starts listening with `delegate` serving every path, method and media type within `limits`.
    public convenience init(listener: HTTPListener, limits: HTTPServerLimits, delegate: HTTPHandler) throws {
        let everything = HTTPEndpoint(
            "the server", path: .prefix("/"), methods: ["GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"],
            limits: limits.endpointLimits, handler: delegate)
        try self.init(listener: listener, limits: limits, endpoints: [everything], observer: delegate)
    }

    /// Starts listening on a TCP address or a Unix socket (a socket file left by an earlier server is replaced),
    /// serving `endpoints`; two on one path are refused before anything listens.
    ///
    /// - Parameters:
    ///   - observer: hears of the refusals no endpoint owns: no endpoint at the path, and connections cut or
    ///     closed before a request head arrived.
    public init(
        listener: HTTPListener, limits: HTTPServerLimits, endpoints: [HTTPEndpoint],
        observer: HTTPRefusalObserver? = nil
    ) throws {
        self.listener = listener
        self.limits = limits
        self.router = try HTTPRouter(endpoints)
        self.observer = observer
        self.queue = HTTPExchangeQueue(capacity: limits.queueCapacity)
        var storage = sockaddr_storage()
        var listening: Int32 = -1
        let port: UInt16
        switch listener {
        case .tcp(let address, let given):
            self.address = address
            port = given
            guard HTTPPeer.fill(&storage, address: address, port: port) else {
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
                while let exchange = queue.take() { exchange.answer(exchange.work()) }
                finished.leave()
            }
            worker.name = "pipe-http-worker-\(index)"
            workers.append(worker)
            worker.start()
        }
        connections.startWatchdog(head: limits.headSeconds, total: limits.requestSeconds) { [weak self] cut in
            self?.reportCut(cut)
        }
    }

    /// The routes, until `stop()`.
    var currentRouter: HTTPRouter? {
        stopLock.lock()
        defer { stopLock.unlock() }
        return router
    }

    /// Who hears of a refusal: the endpoint the request was for, else the server's observer.
    func refusalObserver(for endpoint: HTTPEndpoint?) -> HTTPRefusalObserver? {
        stopLock.lock()
        defer { stopLock.unlock() }
        guard router != nil else { return nil }
        return endpoint?.handler ?? observer
    }

    private func reportCut(_ cut: ConnectionTable.Cut) {
        let limits = cut.state?.limits ?? self.limits.endpointLimits
        let reason: String
        switch cut.cause {
        case .noHead:
            reason =
                "cut off: no complete request head within \(Self.seconds(self.limits.headSeconds)) (a slow or "
                + "stalled client)"
        case .tooSlow:
            reason =
                "cut off: the request took more than \(Self.seconds(limits.requestSeconds)) (a slow or stalled "
                + "client)"
        case .stalled:
            reason =
                "cut off: the client read nothing of the streamed answer for \(Self.seconds(limits.stallSeconds))"
        }
        refusalObserver(for: cut.state?.endpoint)?.refused(
            cut.head, remoteAddress: cut.remoteAddress, status: nil, reason: reason)
    }

    /// Stops accepting, waits for open connections, the workers and the producers of streamed answers, and lets go
    /// of the endpoints.
    public func stop() {
        stopLock.lock()
        guard !stopped else {
            stopLock.unlock()
            return
        }
        stopped = true
        stopLock.unlock()
        connections.closeStreams()
        if let daemon { MHD_stop_daemon(daemon) }
        daemon = nil
        if case .unixSocket(let path) = listener { unlink(path) }
        queue.close()
        finished.wait()
        producers.wait()
        connections.stopWatchdog()
        stopLock.lock()
        router = nil
        observer = nil
        stopLock.unlock()
    }

    var isUnixSocket: Bool {
        if case .unixSocket = listener { return true }
        return false
    }

    static func seconds(_ value: Double) -> String { String(format: "%.1f s", value) }
}

/// One request between libmicrohttpd's calls: its head, its endpoint, the body so far, and whether it was answered.
final class RequestState {
    let head: HTTPRequestHead
    var endpoint: HTTPEndpoint?
    var limits: HTTPEndpointLimits
    var receiver: HTTPBodyReceiver?
    var body: [UInt8] = []
    var received = 0
    var tooLarge = false
    /// The answer an endpoint's receiver gave part way through the body, sent once the rest is read.
    var refusal: HTTPResponse?
    var responded = false
    /// The body of a streamed answer, once it has begun.
    var stream: HTTPResponseStream?

    init(head: HTTPRequestHead, limits: HTTPEndpointLimits) {
        self.head = head
        self.limits = limits
    }
}
