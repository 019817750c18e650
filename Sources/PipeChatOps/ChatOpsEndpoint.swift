import Foundation
import PipeCore

/// The chat-ops endpoint: an HTTP server that takes slash commands, verifies, limits, authorizes and audits them,
/// hands them to a `ChatOpsBackend`, acknowledges within the chat's 3 seconds, and later posts the run's progress
/// to the request's `response_url`.
///
/// Order of checks, each refusal answered and audited with nothing done: path (404), method (405), content type
/// (415), body size (413), then on a worker: verification (401/400), form (400), per-user rate (429), command
/// (a misunderstood one gets help), authorization (403, and the reason posted to the response URL too, since
/// Slack shows only a generic error for a non-200 answer).
public final class ChatOpsEndpoint: HTTPServerDelegate, @unchecked Sendable {
    public let config: ChatOpsConfig
    let verifier: RequestVerifier
    let backend: ChatOpsBackend
    let audit: ChatAuditLog
    let notifier: ResponseNotifier
    let watcher: RunProgressWatcher
    let rateLimiter: RateLimiter
    let log: @Sendable (String) -> Void
    let clock: @Sendable () -> Date
    private var server: HTTPServer?

    /// - Parameters:
    ///   - secret: the signing secret (Slack) or command token (Mattermost), as `ChatOpsSecret.read` returns it.
    ///   - log: the server's log (stderr for `pipe chatops serve`); never given a secret.
    ///   - progressInterval: how often queued runs' records are read for progress messages.
    public init(
        config: ChatOpsConfig, secret: String, backend: ChatOpsBackend, audit: ChatAuditLog,
        notifier: ResponseNotifier? = nil, progressInterval: Double = 1,
        clock: @escaping @Sendable () -> Date = { Date() }, log: @escaping @Sendable (String) -> Void
    ) {
        self.config = config
        self.verifier = RequestVerifier(
            dialect: config.dialect, secret: secret, window: config.timestampWindowSeconds)
        self.backend = backend
        self.audit = audit
        let notifier = notifier ?? ResponseNotifier(log: log)
        self.notifier = notifier
        self.watcher = RunProgressWatcher(
            backend: backend, notifier: notifier, interval: progressInterval, log: log)
        self.rateLimiter = RateLimiter(perMinute: config.limits.requestsPerMinute)
        self.log = log
        self.clock = clock
    }

    /// Starts listening; returns the port (the one chosen when the config says 0).
    @discardableResult
    public func start() throws -> UInt16 {
        let server = try HTTPServer(
            address: config.address, port: config.port, limits: config.serverLimits, delegate: self)
        self.server = server
        return server.port
    }

    /// Stops listening, then following runs and posting messages.
    public func stop() {
        server?.stop()
        server = nil
        watcher.stop()
        notifier.stop()
    }

    // MARK: - HTTPServerDelegate

    public func screen(_ head: HTTPRequestHead) -> HTTPResponse? {
        let refusal: (Int, String)?
        if head.path != config.path {
            refusal = (404, "no endpoint at \(head.path)")
        } else if head.method != "POST" {
            refusal = (405, "slash commands are sent with POST, not \(head.method)")
        } else if head.mediaType != "application/x-www-form-urlencoded" {
            refusal = (
                415, "slash commands are sent as application/x-www-form-urlencoded, not \(head.mediaType ?? "nothing")"
            )
        } else {
            refusal = nil
        }
        guard let (status, reason) = refusal else { return nil }
        record(
            ChatAuditEntry(
                at: clock(), remoteAddress: head.remoteAddress, status: status, decision: .refused, reason: reason))
        return .text(status, reason)
    }

    public func refused(_ head: HTTPRequestHead?, remoteAddress: String, status: Int?, reason: String) {
        record(
            ChatAuditEntry(
                at: clock(), remoteAddress: remoteAddress, status: status, decision: .refused, reason: reason))
    }

    public func respond(to request: HTTPRequest) -> HTTPResponse {
        let outcome = handle(request)
        var entry = outcome.audit
        entry.status = outcome.response.status
        record(entry)
        return outcome.response
    }

    func record(_ entry: ChatAuditEntry) {
        do {
            try audit.record(entry)
        } catch {
            log("chatops: could not write the audit log: \(error)")
        }
    }

    /// An answer and what the audit log keeps of it.
    struct Outcome {
        var response: HTTPResponse
        var audit: ChatAuditEntry
    }

    /// The answer as the chat shows it: only to the person who asked.
    static func ephemeral(_ text: String, status: Int = 200) -> HTTPResponse {
        .json(status, ["response_type": "ephemeral", "text": text])
    }
}
