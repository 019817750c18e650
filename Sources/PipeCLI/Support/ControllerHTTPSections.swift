import Foundation
import PipeChatOps
import PipeHTTP
import PipeServer
import PipeSpec
import PipeWeb

/// The controller's one HTTP listener, from its config's `http:` section: where it listens, the public URL that
/// links point to, and the limits every connection shares (each endpoint keeps its own body and time limits).
struct ControllerHTTPConfig: Equatable {
    var listener: HTTPListener
    /// The public URL of the listener behind its reverse proxy, without a trailing `/`; links to a run are
    /// `<base-url>/runs/<id>`.
    var baseURL: String?
    var limits: HTTPServerLimits

    static let defaultListener = HTTPListener.tcp(address: "127.0.0.1", port: 8088)

    init(
        listener: HTTPListener = Self.defaultListener, baseURL: String? = nil,
        limits: HTTPServerLimits = HTTPServerLimits(maxHeaderBytes: 8 * 1024, maxConnectionsPerPeer: 8, headSeconds: 3)
    ) {
        self.listener = listener
        self.baseURL = baseURL
        self.limits = limits
    }

    /// The link to a run's page, when a base URL is configured.
    func runURL(_ id: String) -> String? { baseURL.map { "\($0)/runs/\(id)" } }
}

/// The controller config's `http:`, `chatops:` and `web:` sections, decoded with their problems reported in the controller
/// config's own list (file:line:column).
///
/// The controller listens once. With an `http:` section, `chatops:` may not say where to listen (its `address`,
/// `port`, `unix-socket` and its connection limits are `pipe chatops serve`'s); without one, those `chatops:` keys
/// place the listener, so a config written for chat-ops alone keeps working.
final class ControllerHTTPSections {
    private(set) var http: ControllerHTTPConfig?
    private(set) var chatops: ChatOpsConfig?
    /// The web page, mounted at its `path` on the same listener (docs/web.md).
    private(set) var web: WebConfig?
    /// The listener keys `chatops:` gave, with their positions, to be refused when `http:` is present.
    private var chatopsListenerKeys: [(path: SpecKeyPath, mark: SourceMark)] = []

    static let keys = ControllerConfigFileShape.http.keyNames
    static let limitKeys = ControllerConfigFileShape.httpLimits.keyNames
    /// The `chatops:` keys that say where and how the listener listens.
    static let chatopsListenerKeys = ["address", "port", "unix-socket"]
    static let chatopsConnectionLimits = ["header-bytes", "connections", "connections-per-peer", "head-time"]

    /// Registers both sections on `loader`. Its sections are decoded in key order, so `chatops:` is read before
    /// `http:` checks it.
    func register(on loader: inout ControllerConfigLoader) {
        loader.additionalSections["chatops"] = decodeChatOps
        loader.additionalSections["http"] = decodeHTTP
        loader.additionalSections["web"] = decodeWeb
    }

    /// Loads the config afresh: what an earlier load decoded is forgotten first.
    func load(_ loader: ControllerConfigLoader, _ url: URL) throws(SpecErrors) -> ControllerConfig {
        http = nil
        chatops = nil
        web = nil
        chatopsListenerKeys = []
        return try loader.load(url)
    }

    /// Where the controller listens when it has endpoints: `http:`, else the listener keys of `chatops:`, else the
    /// defaults.
    var listenerConfig: ControllerHTTPConfig {
        if let http { return http }
        if let chatops { return ControllerHTTPConfig(listener: chatops.listener, limits: chatops.serverLimits) }
        return ControllerHTTPConfig()
    }

    func decodeChatOps(_ document: SpecDocument, _ node: YAMLNode, _ path: SpecKeyPath) {
        do {
            chatops = try ChatOpsConfigLoader.load(node, file: document.file, keyPath: path.description)
        } catch {
            chatops = nil
            Self.report(error, in: document)
        }
        for entry in node.mapping ?? [] {
            guard let key = entry.key.keyText else { continue }
            if Self.chatopsListenerKeys.contains(key) {
                chatopsListenerKeys.append((path.appending(key), entry.key.start))
            } else if key == "limits" {
                for limit in entry.value.mapping ?? [] {
                    guard let name = limit.key.keyText, Self.chatopsConnectionLimits.contains(name) else { continue }
                    chatopsListenerKeys.append((path.appending("limits").appending(name), limit.key.start))
                }
            }
        }
    }

    /// `web:`, whose listener keys are refused: on the controller, `http:` says where it listens.
    func decodeWeb(_ document: SpecDocument, _ node: YAMLNode, _ path: SpecKeyPath) {
        do {
            web = try WebConfigLoader.load(node, file: document.file, keyPath: path.description, listens: false)
        } catch {
            web = nil
            Self.report(error, in: document)
        }
    }

    /// A section loader's problems in the controller config's own list.
    private static func report(_ error: SpecErrors, in document: SpecDocument) {
        for problem in error.problems {
            let keys = problem.keyPath.split(separator: ".").map { SpecKeyPath.Component.key(String($0)) }
            document.error(SpecKeyPath(keys), at: problem.mark, problem.message)
        }
    }

    func decodeHTTP(_ document: SpecDocument, _ node: YAMLNode, _ path: SpecKeyPath) {
        for given in chatopsListenerKeys {
            document.error(
                given.path, at: given.mark,
                "the controller listens once, where `http:` says: move this key into `http:` (\(Self.httpKey(for: given.path))) "
                    + "or remove it; in `chatops:` it is read only by `pipe chatops serve` (docs/controller.md)")
        }
        guard let mapping = document.mapping(node, at: path, expected: "a mapping (address, port, base-url…)") else {
            return
        }
        mapping.rejectUnknownKeys(allowed: Self.keys)
        var config = ControllerHTTPConfig()
        var address = "127.0.0.1"
        var port: UInt16 = 8088
        if let node = mapping.value("address"), let text = document.nonEmptyString(node, at: path.appending("address"))
        {
            address = text
        }
        if let node = mapping.value("port"), let value = document.integer(node, at: path.appending("port")) {
            if let valid = UInt16(exactly: value) {
                port = valid
            } else {
                document.error(path.appending("port"), at: node.start, "must be a port from 0 to 65535, found \(value)")
            }
        }
        config.listener = .tcp(address: address, port: port)
        if let node = mapping.value("unix-socket"),
            let socket = document.nonEmptyString(node, at: path.appending("unix-socket"))
        {
            if mapping.contains("address") || mapping.contains("port") {
                document.error(
                    path.appending("unix-socket"), at: node.start,
                    "give either unix-socket or address and port: the controller listens in one place")
            }
            config.listener = .unixSocket(path: socket)
        }
        if let node = mapping.value("base-url"),
            let text = document.nonEmptyString(node, at: path.appending("base-url"))
        {
            switch Self.baseURL(text) {
            case .success(let url): config.baseURL = url
            case .failure(let problem): document.error(path.appending("base-url"), at: node.start, problem.message)
            }
        }
        if let node = mapping.value("limits") { decodeLimits(node, path.appending("limits"), into: &config, document) }
        http = config
    }

    private func decodeLimits(
        _ node: YAMLNode, _ path: SpecKeyPath, into config: inout ControllerHTTPConfig, _ document: SpecDocument
    ) {
        guard let mapping = document.mapping(node, at: path) else { return }
        mapping.rejectUnknownKeys(allowed: Self.limitKeys)
        func count(_ key: String, minimum: Int) -> Int? {
            guard let node = mapping.value(key), let value = document.integer(node, at: path.appending(key)) else {
                return nil
            }
            guard value >= minimum, value <= 1_000_000 else {
                document.error(
                    path.appending(key), at: node.start, "must be from \(minimum) to 1000000, found \(value)")
                return nil
            }
            return value
        }
        if let value = count("header-bytes", minimum: 1024) { config.limits.maxHeaderBytes = value }
        if let value = count("connections", minimum: 1) { config.limits.maxConnections = value }
        if let value = count("connections-per-peer", minimum: 0) { config.limits.maxConnectionsPerPeer = value }
        if let node = mapping.value("head-time"), let seconds = document.duration(node, at: path.appending("head-time"))
        {
            config.limits.headSeconds = seconds
        }
    }

    /// Where a `chatops:` listener key goes in `http:`.
    private static func httpKey(for path: SpecKeyPath) -> String {
        let text = path.description
        guard let last = text.split(separator: ".").last else { return "http:" }
        return text.contains(".limits.") ? "http.limits.\(last)" : "http.\(last)"
    }

    /// A base URL: `http://` or `https://`, a host, an optional path; no credentials, query or fragment. The
    /// trailing `/` is dropped.
    static func baseURL(_ text: String) -> Result<String, HTTPServerError> {
        let lower = text.lowercased()
        guard lower.hasPrefix("https://") || lower.hasPrefix("http://"),
            let components = URLComponents(string: text), let host = components.host, !host.isEmpty
        else {
            return .failure(
                HTTPServerError(
                    "expected the listener's public URL, such as https://ci.example.com/pipe; found '\(text)'"))
        }
        guard components.user == nil, components.password == nil, components.query == nil,
            components.fragment == nil
        else {
            return .failure(
                HTTPServerError(
                    "the base URL may hold no user, password, query or fragment; give only scheme, host, "
                        + "port and path"))
        }
        var url = text
        while url.hasSuffix("/") { url.removeLast() }
        return .success(url)
    }
}
