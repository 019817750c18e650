/// What the whole server, and a connection before its request is routed, may take; past any of them a request is
/// refused or cut off. The body, total and answer limits are those of a server with one handler for every path;
/// mounted endpoints have their own (`HTTPEndpointLimits`).
public struct HTTPServerLimits: Sendable, Equatable {
    /// Largest body accepted (413 beyond).
    public var maxBodyBytes: Int
    /// Room for the request line and headers (libmicrohttpd answers 431 beyond).
    public var maxHeaderBytes: Int
    /// Connections at once. When a new one would pass it, the oldest connection still waiting for its request
    /// head is cut to make room (a client that holds a connection without asking is the one to go), or the new one
    /// when every connection is busy with a request.
    public var maxConnections: Int
    /// Connections at once from one IP address over TCP (0: no limit); more are closed as they arrive. Connections
    /// over a Unix socket all come from the reverse proxy and are not counted.
    public var maxConnectionsPerPeer: Int
    /// Time a connection has to send a complete request head, from when it opened (or its previous answer).
    public var headSeconds: Double
    /// Total time a connection has, from its first byte to the last of the answer: a client that sends slowly
    /// (even steadily) is cut off when it runs out, whatever libmicrohttpd's idle timeout says.
    public var requestSeconds: Double
    /// How long a complete request may wait for its answer before 503.
    public var answerSeconds: Double
    /// Requests waiting for a worker; more are answered 503 at once.
    public var queueCapacity: Int
    /// Threads answering requests from the queue.
    public var workers: Int

    public init(
        maxBodyBytes: Int = 16 * 1024, maxHeaderBytes: Int = 16 * 1024, maxConnections: Int = 64,
        maxConnectionsPerPeer: Int = 0, headSeconds: Double? = nil, requestSeconds: Double = 10,
        answerSeconds: Double = 2.5, queueCapacity: Int = 256, workers: Int = 4
    ) {
        self.maxBodyBytes = maxBodyBytes
        self.maxHeaderBytes = maxHeaderBytes
        self.maxConnections = maxConnections
        self.maxConnectionsPerPeer = maxConnectionsPerPeer
        self.headSeconds = min(headSeconds ?? requestSeconds, requestSeconds)
        self.requestSeconds = requestSeconds
        self.answerSeconds = answerSeconds
        self.queueCapacity = queueCapacity
        self.workers = workers
    }

    /// The body, total and answer limits as one endpoint's.
    public var endpointLimits: HTTPEndpointLimits {
        HTTPEndpointLimits(maxBodyBytes: maxBodyBytes, requestSeconds: requestSeconds, answerSeconds: answerSeconds)
    }

    /// Connections libmicrohttpd accepts beyond `maxConnections`, so that a new one can arrive and push out a
    /// connection that is only holding its place.
    static let reserveConnections = 16
}
