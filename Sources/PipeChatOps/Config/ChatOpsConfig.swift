import Foundation
import PipeCore
import PipeHTTP

/// The `chatops:` section of the controller's config (and of `pipe chatops serve --config`): where the endpoint
/// listens, how requests are verified, its limits, and who may do what.
///
/// The secret is never in the file: only where to read it (`secret: {env: NAME}` or `{file: path}`).
public struct ChatOpsConfig: Sendable, Equatable {
    /// The IP address to listen on. A reverse proxy in front terminates TLS (docs/chatops.md).
    public var address: String
    public var port: UInt16
    /// A Unix socket to listen on instead of `address` and `port`: the reverse proxy connects to it.
    public var unixSocket: String?
    /// How headers the reverse proxy adds are believed.
    public var proxy: ChatOpsProxy?
    /// The path the chat posts to, e.g. `/chatops/slash`.
    public var path: String
    public var dialect: ChatDialect
    /// Where Slack's signing secret (or Mattermost's command token) is read on this machine.
    public var secret: SecretSource
    /// How far Slack's request timestamp may be from now.
    public var timestampWindowSeconds: Double
    public var limits: ChatOpsLimits
    /// Where a `response_url` may point to be posted to (e.g. `https://hooks.slack.com/`).
    public var responseURLs: [ResponseURLRule]
    /// Who sees the messages after the acknowledgement: the channel, or only the person who asked.
    public var resultsInChannel: Bool
    /// The audit log file (`pipe chatops serve` only; the controller writes to the run store).
    public var auditLog: String?
    public var authorization: ChatAuthorization

    public init(
        address: String = "127.0.0.1", port: UInt16 = 8088, path: String = "/chatops/slash",
        dialect: ChatDialect = .slack, secret: SecretSource, timestampWindowSeconds: Double = 300,
        limits: ChatOpsLimits = ChatOpsLimits(), responseURLs: [ResponseURLRule]? = nil, resultsInChannel: Bool = true,
        auditLog: String? = nil, authorization: ChatAuthorization = ChatAuthorization(), unixSocket: String? = nil,
        proxy: ChatOpsProxy? = nil
    ) {
        self.address = address
        self.port = port
        self.unixSocket = unixSocket
        self.proxy = proxy
        self.path = path
        self.dialect = dialect
        self.secret = secret
        self.timestampWindowSeconds = timestampWindowSeconds
        self.limits = limits
        self.responseURLs = responseURLs ?? Self.defaultResponseURLs(dialect)
        self.resultsInChannel = resultsInChannel
        self.auditLog = auditLog
        self.authorization = authorization
    }

    /// Slack's response URLs all live on one host; Mattermost's are the server's own, so none is assumed.
    public static func defaultResponseURLs(_ dialect: ChatDialect) -> [ResponseURLRule] {
        guard dialect == .slack, let slack = try? ResponseURLRule("https://hooks.slack.com/") else { return [] }
        return [slack]
    }

    /// Where the HTTP server listens.
    public var listener: HTTPListener {
        unixSocket.map { .unixSocket(path: $0) } ?? .tcp(address: address, port: port)
    }

    /// What one slash command may take.
    public var endpointLimits: HTTPEndpointLimits {
        HTTPEndpointLimits(
            maxBodyBytes: limits.bodyBytes, requestSeconds: limits.requestSeconds,
            answerSeconds: min(2.5, limits.requestSeconds))
    }

    /// The limits of a server of its own (`pipe chatops serve`).
    public var serverLimits: HTTPServerLimits {
        HTTPServerLimits(
            maxBodyBytes: limits.bodyBytes, maxHeaderBytes: limits.headerBytes, maxConnections: limits.connections,
            maxConnectionsPerPeer: limits.connectionsPerPeer, headSeconds: limits.headSeconds,
            requestSeconds: limits.requestSeconds, answerSeconds: min(2.5, limits.requestSeconds))
    }
}

/// The endpoint's hard limits.
public struct ChatOpsLimits: Sendable, Equatable {
    /// Largest request body (a slash command is well under 4 KiB).
    public var bodyBytes: Int
    /// Room for the request line and headers.
    public var headerBytes: Int
    /// Connections at once.
    public var connections: Int
    /// Connections at once from one address over TCP (the Unix socket's, all the proxy's, are not counted).
    public var connectionsPerPeer: Int
    /// Time a connection has to send its request head.
    public var headSeconds: Double
    /// Total time one request may take to arrive, slow clients included.
    public var requestSeconds: Double
    /// Requests one chat user may make per minute (a burst of that many, refilled evenly).
    public var requestsPerMinute: Int
    /// The most bytes of each text field of an audit entry.
    public var auditFieldBytes: Int
    /// Refusals of unverified requests written one by one per peer and `refusalWindowSeconds`; the rest counted.
    public var refusalsLoggedPerPeer: Int
    public var refusalWindowSeconds: Double
    /// The audit log file's size before it is moved to `<name>.1`.
    public var auditLogBytes: Int

    public init(
        bodyBytes: Int = 8 * 1024, headerBytes: Int = 8 * 1024, connections: Int = 64, connectionsPerPeer: Int = 8,
        headSeconds: Double = 3, requestSeconds: Double = 10, requestsPerMinute: Int = 20, auditFieldBytes: Int = 1024,
        refusalsLoggedPerPeer: Int = 5, refusalWindowSeconds: Double = 60, auditLogBytes: Int = 16 * 1024 * 1024
    ) {
        self.bodyBytes = bodyBytes
        self.headerBytes = headerBytes
        self.connections = connections
        self.connectionsPerPeer = connectionsPerPeer
        self.headSeconds = headSeconds
        self.requestSeconds = requestSeconds
        self.requestsPerMinute = requestsPerMinute
        self.auditFieldBytes = auditFieldBytes
        self.refusalsLoggedPerPeer = refusalsLoggedPerPeer
        self.refusalWindowSeconds = refusalWindowSeconds
        self.auditLogBytes = auditLogBytes
    }
}

/// The reverse proxy in front: which header carries the client's address, and the shared secret header that
/// makes a TCP request believed to come through it (`ProxyHeaderTrust`).
public struct ChatOpsProxy: Sendable, Equatable {
    public var forwardedFor: String
    public var secretHeader: String?
    public var secret: SecretSource?

    public init(forwardedFor: String = "X-Forwarded-For", secretHeader: String? = nil, secret: SecretSource? = nil) {
        self.forwardedFor = forwardedFor
        self.secretHeader = secretHeader
        self.secret = secret
    }
}
