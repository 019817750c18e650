import Foundation
import PipeCore
import PipeHTTP

/// The chat-ops endpoint: an HTTP server that takes slash commands, verifies, limits, authorizes and audits them,
/// hands them to a `ChatOpsBackend`, acknowledges within the chat's 3 seconds, and later posts the run's progress
/// to the request's `response_url`.
///
/// It is one endpoint (`httpEndpoint`) mounted on an `HTTPServer`: its own (`start()`, for `pipe chatops serve`) or
/// the controller's one listener (`mount()`).
///
/// Order of checks, each refusal answered and audited with nothing done: path (404), method (405), content type
/// (415), body size (413), all decided by the server's routing from the head, then on a worker: verification (401/400), form (400), per-user rate (429), command
/// (a misunderstood one gets help), authorization (403, and the reason posted to the response URL too, since
/// Slack shows only a generic error for a non-200 answer).
///
/// The audit log takes bounded room: every field is cut to `limits.auditFieldBytes`, and refusals of requests
/// that did not verify go through a `RefusalThrottle` per peer (the proxy's forwarded address only when
/// `ProxyHeaderTrust` believes it). Verified requests are always written and never limited by others' refusals.
public final class ChatOpsEndpoint: HTTPHandler, @unchecked Sendable {
    public let config: ChatOpsConfig
    let verifier: RequestVerifier
    let backend: ChatOpsBackend
    let audit: ChatAuditLog
    let notifier: ResponseNotifier
    let watcher: RunProgressWatcher
    let rateLimiter: any RateGuard
    let refusals: RefusalThrottle
    let proxyTrust: ProxyHeaderTrust
    let log: @Sendable (String) -> Void
    let clock: @Sendable () -> Date
    private var server: HTTPServer?
    private let flusher = DispatchGroup()
    private let flushCondition = NSCondition()
    private var flushing = false

    /// - Parameters:
    ///   - secret: the signing secret (Slack) or command token (Mattermost), as `ChatOpsSecret.read` returns it.
    ///   - proxySecret: the shared secret of `config.proxy.secret`, as `ChatOpsSecret.read` returns it.
    ///   - log: the server's log (stderr for `pipe chatops serve`); never given a secret.
    ///   - progressInterval: how often queued runs' records are read for progress messages.
    ///   - ledger: the store every controller of a cluster shares, to keep replays and rates in; this process's
    ///     memory when `nil` (one process serves the chat).
    public init(
        config: ChatOpsConfig, secret: String, proxySecret: String? = nil, backend: ChatOpsBackend,
        audit: ChatAuditLog, notifier: ResponseNotifier? = nil, progressInterval: Double = 1,
        ledger: RequestLedger? = nil, clock: @escaping @Sendable () -> Date = { Date() },
        log: @escaping @Sendable (String) -> Void
    ) {
        self.config = config
        let shared = ledger.map {
            SharedRequestGuard(
                ledger: $0, window: config.timestampWindowSeconds, perMinute: config.limits.requestsPerMinute)
        }
        self.verifier = RequestVerifier(
            dialect: config.dialect, secret: secret, window: config.timestampWindowSeconds, replays: shared)
        self.backend = backend
        self.audit = audit
        let notifier = notifier ?? ResponseNotifier(log: log)
        self.notifier = notifier
        self.watcher = RunProgressWatcher(
            backend: backend, notifier: notifier, interval: progressInterval, log: log)
        self.rateLimiter = shared ?? RateLimiter(perMinute: config.limits.requestsPerMinute)
        self.refusals = RefusalThrottle(
            perPeer: config.limits.refusalsLoggedPerPeer, window: config.limits.refusalWindowSeconds)
        self.proxyTrust = ProxyHeaderTrust(
            forwardedFor: config.proxy?.forwardedFor ?? "X-Forwarded-For", secretHeader: config.proxy?.secretHeader,
            secret: proxySecret)
        self.log = log
        self.clock = clock
    }

    /// Starts listening on a server of its own; returns the port (the one chosen when the config says 0; 0 on a
    /// Unix socket). Refusals that belong to no endpoint (another path, a connection that sent no head) are
    /// audited here too.
    @discardableResult
    public func start() throws -> UInt16 {
        let endpoint = try mount()
        do {
            let server = try HTTPServer(
                listener: config.listener, limits: config.serverLimits, endpoints: [endpoint], observer: self)
            self.server = server
            return server.port
        } catch {
            stop()
            throw error
        }
    }

    /// The endpoint to mount on a server the caller owns (the controller's one listener), with the threads that
    /// write counted refusals started; `stop()` ends them.
    public func mount() throws -> HTTPEndpoint {
        if config.proxy?.secretHeader != nil, proxyTrust.secretHeader == nil {
            throw ChatOpsError(
                "chatops.proxy.secret-header is set but its secret was not given to the endpoint (empty or not read)")
        }
        startFlushing()
        return httpEndpoint
    }

    /// Slash commands: `POST` of a form to the configured path, within the config's limits.
    public var httpEndpoint: HTTPEndpoint {
        HTTPEndpoint(
            "chat-ops", path: .exact(config.path), methods: ["POST"],
            mediaTypes: ["application/x-www-form-urlencoded"], limits: config.endpointLimits, handler: self)
    }

    /// Stops listening, writes the refusals still counted, then stops following runs and posting messages.
    public func stop() {
        server?.stop()
        server = nil
        flushCondition.lock()
        let wasFlushing = flushing
        flushing = false
        flushCondition.broadcast()
        flushCondition.unlock()
        if wasFlushing { flusher.wait() }
        for summary in refusals.drain(now: clock()) { write(summary) }
        watcher.stop()
        notifier.stop()
    }

    /// Writes each peer's count of refusals when its window ends, also when no request follows.
    private func startFlushing() {
        flushCondition.lock()
        flushing = true
        flushCondition.unlock()
        flusher.enter()
        let interval = min(1, config.limits.refusalWindowSeconds / 4)
        let thread = Thread { [self] in
            while true {
                flushCondition.lock()
                if flushing { _ = flushCondition.wait(until: Date().addingTimeInterval(interval)) }
                let going = flushing
                flushCondition.unlock()
                guard going else { break }
                for summary in refusals.due(now: clock()) { write(summary) }
            }
            flusher.leave()
        }
        thread.name = "pipe-chatops-refusals"
        thread.start()
    }

    // MARK: - HTTPHandler

    public func refused(_ head: HTTPRequestHead?, remoteAddress: String, status: Int?, reason: String) {
        var entry = entry(for: head, fallback: remoteAddress)
        entry.status = status
        entry.reason = reason
        entry.kind = Self.kind(ofServerRefusal: reason, status: status)
        record(entry)
    }

    /// An audit entry for a request from `head`'s sender (the client a believed proxy names, else the peer).
    func entry(for head: HTTPRequestHead?, fallback: String) -> ChatAuditEntry {
        let peer = head?.remoteAddress ?? fallback
        let client = head.map(proxyTrust.clientAddress) ?? fallback
        var entry = ChatAuditEntry(at: clock(), remoteAddress: client, status: nil, decision: .refused, reason: "")
        if client != peer { entry.proxy = peer }
        return entry
    }

    /// The fixed label of a refusal the HTTP server made.
    static func kind(ofServerRefusal reason: String, status: Int?) -> String {
        switch status {
        case 400?: return "bad path"
        case 404?: return "wrong path"
        case 405?: return "wrong method"
        case 415?: return "wrong media type"
        case 413?: return "body too large"
        case 503?: return "server busy"
        case let code?: return "HTTP \(code)"
        case nil: return reason.hasPrefix("cut off") ? "slow or stalled client" : "closed early"
        }
    }

    public func respond(to request: HTTPRequest) -> HTTPResponse {
        let outcome = handle(request)
        var entry = outcome.audit
        entry.status = outcome.response.status
        record(entry)
        return outcome.response
    }

    /// Writes `entry`, bounded; refusals of unverified requests through the throttle.
    func record(_ entry: ChatAuditEntry) {
        let bounded = entry.bounded(fieldBytes: config.limits.auditFieldBytes)
        guard !entry.verified, entry.decision == .refused else { return write(bounded) }
        for admitted in refusals.admit(bounded, now: entry.at) { write(admitted) }
    }

    private func write(_ entry: ChatAuditEntry) {
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
