import Foundation
import PipeCore

/// The `chatops:` section of the controller's config (and of `pipe chatops serve --config`): where the endpoint
/// listens, how requests are verified, its limits, and who may do what.
///
/// The secret is never in the file: only where to read it (`secret: {env: NAME}` or `{file: path}`).
public struct ChatOpsConfig: Sendable, Equatable {
    /// The IP address to listen on. A reverse proxy in front terminates TLS (docs/chatops.md).
    public var address: String
    public var port: UInt16
    /// The path the chat posts to, e.g. `/chatops/slash`.
    public var path: String
    public var dialect: ChatDialect
    /// Where Slack's signing secret (or Mattermost's command token) is read on this machine.
    public var secret: SecretSource
    /// How far Slack's request timestamp may be from now.
    public var timestampWindowSeconds: Double
    public var limits: ChatOpsLimits
    /// The beginnings a `response_url` must have to be posted to (e.g. `https://hooks.slack.com/`).
    public var responseURLPrefixes: [String]
    /// Who sees the messages after the acknowledgement: the channel, or only the person who asked.
    public var resultsInChannel: Bool
    /// The audit log file (`pipe chatops serve` only; the controller writes to the run store).
    public var auditLog: String?
    public var authorization: ChatAuthorization

    public init(
        address: String = "127.0.0.1", port: UInt16 = 8088, path: String = "/chatops/slash",
        dialect: ChatDialect = .slack, secret: SecretSource, timestampWindowSeconds: Double = 300,
        limits: ChatOpsLimits = ChatOpsLimits(), responseURLPrefixes: [String]? = nil, resultsInChannel: Bool = true,
        auditLog: String? = nil, authorization: ChatAuthorization = ChatAuthorization()
    ) {
        self.address = address
        self.port = port
        self.path = path
        self.dialect = dialect
        self.secret = secret
        self.timestampWindowSeconds = timestampWindowSeconds
        self.limits = limits
        self.responseURLPrefixes = responseURLPrefixes ?? Self.defaultResponseURLPrefixes(dialect)
        self.resultsInChannel = resultsInChannel
        self.auditLog = auditLog
        self.authorization = authorization
    }

    /// Slack's response URLs all live on one host; Mattermost's are the server's own, so none is assumed.
    public static func defaultResponseURLPrefixes(_ dialect: ChatDialect) -> [String] {
        dialect == .slack ? ["https://hooks.slack.com/"] : []
    }

    /// The HTTP server's limits.
    public var serverLimits: HTTPServerLimits {
        HTTPServerLimits(
            maxBodyBytes: limits.bodyBytes, maxHeaderBytes: limits.headerBytes, maxConnections: limits.connections,
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
    /// Total time one request may take to arrive, slow clients included.
    public var requestSeconds: Double
    /// Requests one chat user may make per minute (a burst of that many, refilled evenly).
    public var requestsPerMinute: Int

    public init(
        bodyBytes: Int = 8 * 1024, headerBytes: Int = 8 * 1024, connections: Int = 64, requestSeconds: Double = 10,
        requestsPerMinute: Int = 20
    ) {
        self.bodyBytes = bodyBytes
        self.headerBytes = headerBytes
        self.connections = connections
        self.requestSeconds = requestSeconds
        self.requestsPerMinute = requestsPerMinute
    }
}
