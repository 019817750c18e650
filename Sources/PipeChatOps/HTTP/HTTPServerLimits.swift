/// What one request and the whole server may take; past any of them a request is refused or cut off.
public struct HTTPServerLimits: Sendable, Equatable {
    /// Largest body accepted (413 beyond).
    public var maxBodyBytes: Int
    /// Room for the request line and headers (libmicrohttpd answers 431 beyond).
    public var maxHeaderBytes: Int
    /// Connections at once; more are closed as they arrive.
    public var maxConnections: Int
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
        requestSeconds: Double = 10, answerSeconds: Double = 2.5, queueCapacity: Int = 256, workers: Int = 4
    ) {
        self.maxBodyBytes = maxBodyBytes
        self.maxHeaderBytes = maxHeaderBytes
        self.maxConnections = maxConnections
        self.requestSeconds = requestSeconds
        self.answerSeconds = answerSeconds
        self.queueCapacity = queueCapacity
        self.workers = workers
    }
}
