import Foundation
import PipeBasics
import PipeCore
import PipeSpec

/// Reads a `chatops:` section into a `ChatOpsConfig`, reporting every problem at once with `file:line:column`.
///
/// The controller calls `load(_:file:)` with the value of its config's `chatops:` key; `pipe chatops serve` calls
/// `load(path:)` on a file whose top level holds `chatops:`. The format is in docs/chatops.md.
public enum ChatOpsConfigLoader {
    static let keys = ChatOpsConfigShape.section.keyNames
    static let limitKeys = ChatOpsConfigShape.limits.keyNames
    static let proxyKeys = ChatOpsConfigShape.proxy.keyNames

    /// Reads a file whose top level has a `chatops:` mapping (other top-level keys are left to their owners).
    public static func load(path: URL) throws(SpecErrors) -> ChatOpsConfig {
        let file = path.relativePath
        guard let data = FileManager.default.contents(atPath: path.path) else {
            throw SpecErrors(SpecProblem(file: file, mark: nil, message: "cannot read this file; check the path"))
        }
        let text = String(decoding: data, as: UTF8.self)
        guard let root = try YAMLParser.parse(text, file: file), let entries = root.mapping,
            let section = entries.first(where: { $0.key.keyText == "chatops" })?.value
        else {
            throw SpecErrors(
                SpecProblem(file: file, mark: .start, message: "no `chatops:` section; see docs/chatops.md"))
        }
        return try load(section, file: file)
    }

    /// Decodes the value of a `chatops:` key found in `file`.
    public static func load(_ node: YAMLNode, file: String, keyPath: String = "chatops") throws(SpecErrors)
        -> ChatOpsConfig
    {
        let reader = Reader(file: file)
        let config = reader.config(node, path: keyPath)
        guard reader.problems.isEmpty, let config else {
            throw SpecErrors(
                reader.problems.isEmpty ? [reader.problem(node, keyPath, "is not valid")] : reader.problems)
        }
        return config
    }

    /// Collects problems while decoding; the web page's config reads its section with it too.
    public final class Reader {
        public let file: String
        public var problems: [SpecProblem] = []

        public init(file: String) { self.file = file }

        public func problem(_ node: YAMLNode, _ path: String, _ message: String) -> SpecProblem {
            SpecProblem(file: file, mark: node.start, keyPath: path, message: message)
        }

        public func error(_ node: YAMLNode, _ path: String, _ message: String) {
            problems.append(problem(node, path, message))
        }

        /// A mapping's entries by key, reporting unknown keys (with the nearest known one) and repeated ones.
        public func mapping(_ node: YAMLNode, _ path: String, allowed: [String]?) -> [String: YAMLNode]? {
            guard let entries = node.mapping else {
                error(node, path, "must be a mapping of keys to values")
                return nil
            }
            var values: [String: YAMLNode] = [:]
            for entry in entries {
                guard let key = entry.key.keyText else {
                    error(entry.key, path, "keys must be plain text")
                    continue
                }
                if values[key] != nil {
                    error(entry.key, "\(path).\(key)", "is given twice")
                    continue
                }
                if let allowed, !allowed.contains(key) {
                    var message = "unknown key"
                    if let near = EditDistance.nearest(to: key, in: allowed) {
                        message += "; did you mean '\(near)'?"
                    } else {
                        message += "; expected one of \(allowed.joined(separator: ", "))"
                    }
                    error(entry.key, "\(path).\(key)", message)
                    continue
                }
                values[key] = entry.value
            }
            return values
        }

        public func string(_ node: YAMLNode?, _ path: String) -> String? {
            guard let node else { return nil }
            guard let scalar = node.scalar, scalar.resolved != .null || scalar.isText else {
                error(node, path, "must be text")
                return nil
            }
            return scalar.text
        }

        public func integer(_ node: YAMLNode?, _ path: String, range: ClosedRange<Int>) -> Int? {
            guard let node else { return nil }
            guard let scalar = node.scalar, case .integer(let value) = scalar.resolved, range.contains(value) else {
                error(node, path, "must be a whole number from \(range.lowerBound) to \(range.upperBound)")
                return nil
            }
            return value
        }

        public func duration(_ node: YAMLNode?, _ path: String) -> Double? {
            guard let node else { return nil }
            guard let text = node.scalar?.text, let seconds = DurationParser.seconds(from: text) else {
                error(node, path, "must be a duration such as 10s or 5m")
                return nil
            }
            return seconds
        }

        public func strings(_ node: YAMLNode?, _ path: String) -> [String]? {
            guard let node else { return nil }
            if node.scalar != nil { return string(node, path).map { [$0] } }
            guard let items = node.sequence else {
                error(node, path, "must be a list of text")
                return nil
            }
            return items.enumerated().compactMap { index, item in string(item, "\(path)[\(index)]") }
        }

        func config(_ node: YAMLNode, path: String) -> ChatOpsConfig? {
            guard let values = mapping(node, path, allowed: ChatOpsConfigLoader.keys) else { return nil }
            var dialect = ChatDialect.slack
            if let text = string(values["dialect"], "\(path).dialect") {
                if let value = ChatDialect(rawValue: text) {
                    dialect = value
                } else if let node = values["dialect"] {
                    error(node, "\(path).dialect", "must be slack or mattermost")
                }
            }
            let secret = secretSource(values["secret"], "\(path).secret", node: node)
            var config = ChatOpsConfig(dialect: dialect, secret: secret ?? .environment("PIPE_CHATOPS_SECRET"))
            if let address = string(values["address"], "\(path).address") { config.address = address }
            if let port = integer(values["port"], "\(path).port", range: 0...65535) { config.port = UInt16(port) }
            if let route = string(values["path"], "\(path).path") {
                if route.hasPrefix("/"), !route.contains("?") {
                    config.path = route
                } else if let node = values["path"] {
                    error(node, "\(path).path", "must start with / and hold no query, e.g. /chatops/slash")
                }
            }
            if let window = duration(values["timestamp-window"], "\(path).timestamp-window") {
                config.timestampWindowSeconds = window
            }
            if let prefixes = strings(values["response-urls"], "\(path).response-urls") {
                var rules: [ResponseURLRule] = []
                for (index, prefix) in prefixes.enumerated() {
                    do {
                        rules.append(try ResponseURLRule(prefix))
                    } catch let refusal {
                        if let node = values["response-urls"] {
                            error(
                                node.sequence?[index] ?? node, "\(path).response-urls",
                                "'\(prefix)': \(refusal.message); write scheme://host[:port]/path, e.g. "
                                    + "https://hooks.slack.com/ (host: with no port allows any port)")
                        }
                    }
                }
                config.responseURLs = rules
            }
            if let results = string(values["results"], "\(path).results") {
                switch results {
                case "channel": config.resultsInChannel = true
                case "private": config.resultsInChannel = false
                default:
                    if let node = values["results"] {
                        error(node, "\(path).results", "must be channel (everyone in it sees) or private")
                    }
                }
            }
            config.auditLog = string(values["audit-log"], "\(path).audit-log")
            listener(values, path, into: &config)
            if let node = values["limits"] { config.limits = limits(node, "\(path).limits") }
            if let node = values["authorization"] {
                config.authorization = authorization(node, "\(path).authorization")
            } else {
                error(
                    node, path,
                    "missing required key 'authorization': name the users and channels allowed to use the endpoint")
            }
            return secret == nil ? nil : config
        }

        /// `unix-socket:` (instead of `address:` and `port:`) and `proxy:`.
        func listener(_ values: [String: YAMLNode], _ path: String, into config: inout ChatOpsConfig) {
            if let node = values["unix-socket"], let socket = string(node, "\(path).unix-socket") {
                if socket.isEmpty || socket.utf8.count > 107 || socket.contains("\0") {
                    error(node, "\(path).unix-socket", "must be a path of 1 to 107 bytes, e.g. /run/pipe/chatops.sock")
                } else {
                    config.unixSocket = socket
                }
                for key in ["address", "port"] where values[key] != nil {
                    if let other = values[key] {
                        error(
                            other, "\(path).\(key)",
                            "is not used with unix-socket: the endpoint listens on the socket only; remove one of them")
                    }
                }
            }
            guard let node = values["proxy"] else { return }
            let here = "\(path).proxy"
            guard let fields = mapping(node, here, allowed: ChatOpsConfigLoader.proxyKeys) else { return }
            var proxy = ChatOpsProxy()
            for key in ["forwarded-for", "secret-header"] {
                guard let field = fields[key], let name = string(field, "\(here).\(key)") else { continue }
                guard Self.isHeaderName(name) else {
                    error(field, "\(here).\(key)", "'\(name)' is not a header name (letters, digits and -)")
                    continue
                }
                if key == "forwarded-for" { proxy.forwardedFor = name } else { proxy.secretHeader = name }
            }
            if let field = fields["secret"] {
                proxy.secret = secretSource(field, "\(here).secret", node: node)
            }
            if (fields["secret-header"] == nil) != (fields["secret"] == nil) {
                error(node, here, "give both secret-header (the header the proxy adds) and secret (where it is read)")
            } else if fields["secret-header"] == nil, config.unixSocket == nil {
                error(
                    node, here,
                    "a header the proxy adds is believed only over unix-socket or with secret-header and secret; give "
                        + "one, or remove proxy (the peer's own address is then used)")
            }
            config.proxy = proxy
        }

        public static func isHeaderName(_ name: String) -> Bool {
            !name.isEmpty
                && name.utf8.allSatisfy {
                    $0 == UInt8(ascii: "-") || (0x30...0x39).contains($0)
                        || (0x41...0x5A).contains($0) || (0x61...0x7A).contains($0)
                }
        }

        public func secretSource(_ node: YAMLNode?, _ path: String, node parent: YAMLNode) -> SecretSource? {
            guard let node else {
                error(parent, path, "missing: say where the secret is read, `secret: {env: NAME}` or `{file: path}`")
                return nil
            }
            if node.scalar != nil {
                // The value is not repeated: it is a secret written where it must never be.
                error(
                    node, path,
                    "the secret itself is never written in this file; name where it is read instead: "
                        + "`secret: {env: NAME}` or `secret: {file: path}`")
                return nil
            }
            guard let values = mapping(node, path, allowed: ChatOpsConfigShape.secret.keyNames) else { return nil }
            switch (string(values["env"], "\(path).env"), string(values["file"], "\(path).file")) {
            case (let name?, nil) where !name.isEmpty: return .environment(name)
            case (nil, let file?) where !file.isEmpty: return .file(file)
            default:
                error(node, path, "give exactly one of env: (an environment variable) or file: (a file)")
                return nil
            }
        }

        func limits(_ node: YAMLNode, _ path: String) -> ChatOpsLimits {
            var limits = ChatOpsLimits()
            guard let values = mapping(node, path, allowed: ChatOpsConfigLoader.limitKeys) else { return limits }
            if let value = integer(values["body-bytes"], "\(path).body-bytes", range: 512...1_048_576) {
                limits.bodyBytes = value
            }
            if let value = integer(values["header-bytes"], "\(path).header-bytes", range: 1024...1_048_576) {
                limits.headerBytes = value
            }
            if let value = integer(values["connections"], "\(path).connections", range: 1...10_000) {
                limits.connections = value
            }
            if let value = integer(values["connections-per-peer"], "\(path).connections-per-peer", range: 1...10_000) {
                limits.connectionsPerPeer = value
            }
            if let value = duration(values["request-time"], "\(path).request-time") {
                limits.requestSeconds = value
            }
            if let value = duration(values["head-time"], "\(path).head-time") {
                if value > limits.requestSeconds, let node = values["head-time"] {
                    error(node, "\(path).head-time", "must not be longer than request-time")
                }
                limits.headSeconds = value
            } else {
                limits.headSeconds = min(limits.headSeconds, limits.requestSeconds)
            }
            if let value = integer(values["requests-per-minute"], "\(path).requests-per-minute", range: 1...100_000) {
                limits.requestsPerMinute = value
            }
            if let value = integer(values["audit-field-bytes"], "\(path).audit-field-bytes", range: 64...65_536) {
                limits.auditFieldBytes = value
            }
            if let value = integer(
                values["refusals-logged-per-peer"], "\(path).refusals-logged-per-peer", range: 0...1000)
            {
                limits.refusalsLoggedPerPeer = value
            }
            if let value = duration(values["refusal-window"], "\(path).refusal-window") {
                limits.refusalWindowSeconds = value
            }
            if let value = integer(
                values["audit-log-bytes"], "\(path).audit-log-bytes", range: 65_536...1_073_741_824)
            {
                limits.auditLogBytes = value
            }
            return limits
        }

        func authorization(_ node: YAMLNode, _ path: String) -> ChatAuthorization {
            var result = ChatAuthorization()
            guard let values = mapping(node, path, allowed: ChatOpsConfigShape.authorization.keyNames) else {
                return result
            }
            result.users = grants(values["users"], "\(path).users", allowSignoff: true)
            result.channels = grants(values["channels"], "\(path).channels", allowSignoff: false)
            return result
        }

        func grants(_ node: YAMLNode?, _ path: String, allowSignoff: Bool) -> [String: ChatAuthorization.Grant] {
            guard let node else { return [:] }
            guard let entries = mapping(node, path, allowed: nil) else { return [:] }
            var grants: [String: ChatAuthorization.Grant] = [:]
            let allowed = (allowSignoff ? ChatOpsConfigShape.userGrant : ChatOpsConfigShape.channelGrant).keyNames
            for (id, value) in entries {
                let here = "\(path).\(id)"
                guard let fields = mapping(value, here, allowed: allowed) else { continue }
                var grant = ChatAuthorization.Grant(name: string(fields["name"], "\(here).name"))
                grant.run = strings(fields["run"], "\(here).run") ?? []
                grant.signoff = strings(fields["signoff"], "\(here).signoff") ?? []
                for pattern in grant.signoff where !pattern.contains("/") {
                    if let node = fields["signoff"] {
                        error(
                            node, "\(here).signoff", "'\(pattern)' must be pipeline/layer, e.g. app-intents/shortcuts")
                    }
                }
                grants[id] = grant
            }
            return grants
        }
    }
}
