import Foundation

/// The forge stand-in (`scripts/forge-standin`): GitHub, Gitea and GitLab on one loopback HTTP server that holds
/// every request to the forges' published contracts. Started for a test on a port of its own choosing, stopped by
/// `stop()` (or when the test process ends: it watches its standard input).
public final class ForgeStandIn: @unchecked Sendable {
    public enum Forge: String, Sendable, CaseIterable {
        case github, gitea, gitlab
    }

    /// What the stand-in knows before the first request: tokens (forge, token, login) and the GitHub App.
    public struct Options: Sendable {
        public var tokens: [(forge: Forge, token: String, login: String)]
        public var githubAppID: Int?
        public var githubAppPublicKey: URL?
        public var githubInstallations: [Int]
        public var githubTokenLifetime: Int?
        public var giteaFlavour: String

        public init(
            tokens: [(forge: Forge, token: String, login: String)] = ForgeStandIn.defaultTokens,
            githubAppID: Int? = nil, githubAppPublicKey: URL? = nil, githubInstallations: [Int] = [1],
            githubTokenLifetime: Int? = nil, giteaFlavour: String = "gitea"
        ) {
            self.tokens = tokens
            self.githubAppID = githubAppID
            self.githubAppPublicKey = githubAppPublicKey
            self.githubInstallations = githubInstallations
            self.githubTokenLifetime = githubTokenLifetime
            self.giteaFlavour = giteaFlavour
        }
    }

    public static let defaultTokens: [(forge: Forge, token: String, login: String)] = [
        (.github, "ghp_standin", "pipe-bot"), (.gitea, "gitea-standin", "pipe-bot"),
        (.gitlab, "glpat-standin", "pipe-bot"),
    ]

    public static var script: URL { RepositoryPaths.root.appendingPathComponent("scripts/forge-standin") }

    public let port: Int
    /// `http://127.0.0.1:<port>`.
    public let root: URL
    private let process: Process
    private let stdin: Pipe
    private let logFolder: TemporaryDirectory

    /// The base URL a forge client is configured with: GitHub as on GitHub Enterprise (`/api/v3`), Gitea
    /// (`/api/v1`), GitLab (`/api/v4`).
    public func apiBase(_ forge: Forge) -> URL {
        root.appendingPathComponent(["github": "api/v3", "gitea": "api/v1", "gitlab": "api/v4"][forge.rawValue]!)
    }

    /// A webhook receiver inside the stand-in: deliveries sent there are listed by `received()`.
    public var sinkURL: URL { root.appendingPathComponent("_standin/sink/hook") }

    /// What the stand-in wrote to standard error (Python tracebacks), for assertion messages.
    public var log: String {
        (try? String(contentsOf: logFolder.appending("stderr.log"), encoding: .utf8)) ?? ""
    }

    public static func start(_ options: Options = Options()) throws -> ForgeStandIn {
        var arguments = ["--port", "0", "--exit-with-stdin", "--gitea-flavour", options.giteaFlavour]
        for token in options.tokens {
            arguments += ["--token", "\(token.forge.rawValue)=\(token.token)=\(token.login)"]
        }
        if let id = options.githubAppID { arguments += ["--github-app-id", String(id)] }
        if let key = options.githubAppPublicKey { arguments += ["--github-app-public-key", key.path] }
        for installation in options.githubInstallations {
            arguments += ["--github-installation", String(installation)]
        }
        if let lifetime = options.githubTokenLifetime { arguments += ["--github-token-ttl", String(lifetime)] }
        return try ForgeStandIn(arguments: arguments)
    }

    private init(arguments: [String]) throws {
        logFolder = try TemporaryDirectory(prefix: "forge-standin")
        let logURL = logFolder.appending("stderr.log")
        try Data().write(to: logURL)
        process = Process()
        process.executableURL = ForgeStandIn.script
        process.arguments = arguments
        stdin = Pipe()
        let stdout = Pipe()
        process.standardInput = stdin
        process.standardOutput = stdout
        process.standardError = try FileHandle(forWritingTo: logURL)
        try process.run()
        var printed = ""
        while !printed.contains("base_url=") || !printed.hasSuffix("\n") {
            let chunk = stdout.fileHandleForReading.availableData
            if chunk.isEmpty { break }
            printed += String(decoding: chunk, as: UTF8.self)
        }
        let facts = Dictionary(
            printed.split(separator: "\n").compactMap { line -> (String, String)? in
                let parts = line.split(separator: "=", maxSplits: 1).map(String.init)
                return parts.count == 2 ? (parts[0], parts[1]) : nil
            }, uniquingKeysWith: { _, last in last })
        guard let portText = facts["port"], let port = Int(portText) else {
            process.waitUntilExit()
            let log = (try? String(contentsOf: logURL, encoding: .utf8)) ?? ""
            throw LoopbackHTTPError.failed(
                "start", ForgeStandIn.script, "printed no port (exit \(process.terminationStatus)): \(printed)\(log)")
        }
        self.port = port
        root = URL(string: "http://127.0.0.1:\(port)")!
    }

    /// Stops the server and waits for it to end.
    public func stop() {
        if process.isRunning {
            try? stdin.fileHandleForWriting.close()
            process.terminate()
            process.waitUntilExit()
        }
        logFolder.remove()
    }

    deinit { stop() }

    // MARK: the control interface (scripts/forge_standin/control.py)

    @discardableResult
    func control(_ method: String, _ path: String, _ body: [String: Any]? = nil) throws -> LoopbackHTTPResponse {
        let url = URL(string: root.absoluteString + "/_standin/" + path)!
        let response =
            try body.map { try LoopbackHTTP.sendJSON(method, url, $0) } ?? LoopbackHTTP.send(method, url)
        guard response.status == 200 else {
            throw LoopbackHTTPError.failed(method, url, "the stand-in answered \(response.status): \(response.text)")
        }
        return response
    }

    func decode<T: Decodable>(_ type: T.Type, _ path: String) throws -> T {
        try JSONDecoder().decode(type, from: control("GET", path).body)
    }

    /// Forgets every object, request, fault and delivery (tokens and the app stay).
    public func reset() throws { try control("POST", "reset", [:]) }

    /// Every request the forges' APIs received, in order, with the stand-in's verdict.
    public func requests(forge: Forge? = nil) throws -> [RecordedForgeRequest] {
        try decode(RecordedForgeRequests.self, "requests" + (forge.map { "?forge=\($0.rawValue)" } ?? "")).requests
    }

    /// The requests a real forge would have refused.
    public func invalidRequests() throws -> [RecordedForgeRequest] {
        try decode(RecordedForgeRequests.self, "requests?invalid=1").requests
    }

    /// The objects one forge holds of a kind: `statuses`, `comments`, `check_runs` or `pulls`.
    public func objects(_ forge: Forge, _ kind: String) throws -> [[String: Any]] {
        let all = try JSONSerialization.jsonObject(with: control("GET", "objects").body) as? [String: Any]
        return (all?[forge.rawValue] as? [String: Any])?[kind] as? [[String: Any]] ?? []
    }

    /// Creates or moves a pull request (GitLab: merge request) so that the forge reports `headSHA` as its head.
    public func setPullRequest(
        _ forge: Forge, repo: String, number: Int, headSHA: String, headRef: String? = nil,
        headRepo: String? = nil, state: String? = nil
    ) throws {
        var body: [String: Any] = ["forge": forge.rawValue, "repo": repo, "number": number, "head_sha": headSHA]
        if let headRef { body["head_ref"] = headRef }
        if let headRepo { body["head_repo"] = headRepo }
        if let state { body["state"] = state }
        try control("POST", "pulls", body)
    }

    /// A comment by another forge user, as anyone who can comment could write it; its id.
    @discardableResult
    public func addForeignComment(_ forge: Forge, repo: String, number: Int, body: String, login: String) throws -> Int
    {
        let answer = try control(
            "POST", "comments", ["forge": forge.rawValue, "repo": repo, "number": number, "body": body, "login": login])
        return answer.jsonObject?["id"] as? Int ?? 0
    }

    /// The next `fault.count` requests that match answer with the fault instead.
    public func script(_ fault: ForgeStandInFault) throws { try control("POST", "faults", fault.json) }

    /// GitHub's primary rate limit as the next answers' `X-RateLimit-*` headers report it.
    public func setRateLimit(limit: Int = 5000, remaining: Int, resetIn: Int = 3600) throws {
        try control("POST", "rate-limit", ["limit": limit, "remaining": remaining, "reset_in": resetIn])
    }

    public func addToken(_ forge: Forge, token: String, login: String) throws {
        try control("POST", "tokens", ["forge": forge.rawValue, "token": token, "login": login])
    }

    /// Moves the stand-in's clock on (installation tokens expire by it).
    public func advanceClock(seconds: Int) throws { try control("POST", "clock", ["seconds": seconds]) }

    /// Delivers a webhook and reports what the receiver answered.
    public func deliver(_ delivery: ForgeStandInDelivery) throws -> ForgeStandInDeliveryResult {
        try JSONDecoder().decode(ForgeStandInDeliveryResult.self, from: control("POST", "deliver", delivery.json).body)
    }

    /// The same delivery again: with the same delivery id (a redelivery) or a new one (a replay under a new id).
    public func repeatDelivery(_ id: Int, newDeliveryID: Bool, url: URL? = nil) throws -> ForgeStandInDeliveryResult {
        var body: [String: Any] = ["new_delivery_id": newDeliveryID]
        if let url { body["url"] = url.absoluteString }
        return try JSONDecoder().decode(
            ForgeStandInDeliveryResult.self, from: control("POST", "deliveries/\(id)/repeat", body).body)
    }

    /// The status the stand-in's own receiver answers deliveries with (200 until set).
    public func setReceiverStatus(_ status: Int) throws { try control("POST", "sink-status", ["status": status]) }

    /// What the stand-in's own receiver (`sinkURL`) got, in order.
    public func received() throws -> [ReceivedWebhook] { try decode(ReceivedWebhooks.self, "received").received }
}
