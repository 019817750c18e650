/// One endpoint mounted on an `HTTPServer`: the paths it serves, what it accepts and its limits.
public struct HTTPEndpoint: @unchecked Sendable {
    /// Names it in messages (`chat-ops`, `GitHub webhooks`).
    public var name: String
    public var path: HTTPPath
    /// Methods it takes (`POST`); any other is answered 405 with `Allow`.
    public var methods: [String]
    /// Media types of `Content-Type` it takes, lower case; any other (or none) is answered 415. `nil`: any or none.
    public var mediaTypes: [String]?
    public var limits: HTTPEndpointLimits
    public var handler: HTTPHandler

    public init(
        _ name: String, path: HTTPPath, methods: [String], mediaTypes: [String]? = nil,
        limits: HTTPEndpointLimits = HTTPEndpointLimits(), handler: HTTPHandler
    ) {
        self.name = name
        self.path = path
        self.methods = methods
        self.mediaTypes = mediaTypes?.map { $0.lowercased() }
        self.limits = limits
        self.handler = handler
    }
}

/// The paths of an endpoint: one exact path, or every path under a prefix ending in `/` (`/runs/`).
public enum HTTPPath: Sendable, Hashable, CustomStringConvertible {
    case exact(String)
    case prefix(String)

    public func matches(_ path: String) -> Bool {
        switch self {
        case .exact(let exact): return path == exact
        case .prefix(let prefix): return path.hasPrefix(prefix)
        }
    }

    public var text: String {
        switch self {
        case .exact(let path), .prefix(let path): return path
        }
    }

    public var description: String {
        switch self {
        case .exact(let path): return path
        case .prefix(let path): return path + "…"
        }
    }
}

/// What one request to an endpoint may take.
public struct HTTPEndpointLimits: Sendable, Equatable {
    /// Largest body accepted (413 beyond): with a `Content-Length`, decided before the body is read.
    public var maxBodyBytes: Int
    /// Total time from the connection's first byte (or its previous answer) to the last byte of the answer: a
    /// client that sends slowly, even steadily, is cut off when it runs out. A streamed answer is not timed once it
    /// has begun; `stallSeconds` bounds it instead.
    public var requestSeconds: Double
    /// How long a complete request may wait for its answer before 503.
    public var answerSeconds: Double
    /// How long a streamed answer's unread bytes may wait for a client that stopped reading before it is cut.
    public var stallSeconds: Double

    public init(
        maxBodyBytes: Int = 16 * 1024, requestSeconds: Double = 10, answerSeconds: Double = 2.5,
        stallSeconds: Double = 30
    ) {
        self.maxBodyBytes = maxBodyBytes
        self.requestSeconds = requestSeconds
        self.answerSeconds = answerSeconds
        self.stallSeconds = stallSeconds
    }
}
