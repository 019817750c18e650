import Foundation
import PipeChatOps
import PipeCore
import PipeHTTP
import PipeSpec

/// Reads a `web:` section into a `WebConfig`, reporting every problem at once with `file:line:column`. The format is
/// in docs/web.md.
public enum WebConfigLoader {
    static let keys = WebConfigShape.section.keyNames
    /// The keys that say where `pipe web serve` listens; on the controller its `http:` section says it.
    public static let listenerKeys = WebConfigShape.listener.map(\.key)
    static let proxyKeys = WebConfigShape.proxy.keyNames

    /// Reads a file whose top level has a `web:` mapping.
    public static func load(path: URL) throws(SpecErrors) -> WebConfig {
        let file = path.relativePath
        guard let data = FileManager.default.contents(atPath: path.path) else {
            throw SpecErrors(SpecProblem(file: file, mark: nil, message: "cannot read this file; check the path"))
        }
        guard let root = try YAMLParser.parse(String(decoding: data, as: UTF8.self), file: file),
            let section = root.mapping?.first(where: { $0.key.keyText == "web" })?.value
        else {
            throw SpecErrors(SpecProblem(file: file, mark: .start, message: "no `web:` section; see docs/web.md"))
        }
        return try load(section, file: file)
    }

    /// Decodes the value of a `web:` key found in `file`; `listens` is false on the controller, where the
    /// listener keys belong in `http:`.
    public static func load(_ node: YAMLNode, file: String, keyPath: String = "web", listens: Bool = true)
        throws(SpecErrors) -> WebConfig
    {
        let reader = ChatOpsConfigLoader.Reader(file: file)
        let config = decode(node, keyPath, reader, listens: listens)
        guard reader.problems.isEmpty, let config else {
            throw SpecErrors(
                reader.problems.isEmpty ? [reader.problem(node, keyPath, "is not valid")] : reader.problems)
        }
        return config
    }

    static func decode(_ node: YAMLNode, _ path: String, _ reader: ChatOpsConfigLoader.Reader, listens: Bool)
        -> WebConfig?
    {
        guard let values = reader.mapping(node, path, allowed: keys) else { return nil }
        var config = WebConfig()
        if !listens {
            for key in listenerKeys {
                if let given = values[key] {
                    reader.error(
                        given, "\(path).\(key)",
                        "the controller listens once, where `http:` says: move this key into `http:` or remove it")
                }
            }
        }
        var address = "127.0.0.1"
        var port: UInt16 = 8090
        if let text = reader.string(values["address"], "\(path).address") { address = text }
        if let value = reader.integer(values["port"], "\(path).port", range: 0...65535) { port = UInt16(value) }
        config.listener = .tcp(address: address, port: port)
        if let socket = reader.string(values["unix-socket"], "\(path).unix-socket"), let node = values["unix-socket"] {
            if socket.isEmpty || socket.utf8.count > 107 || socket.contains("\0") {
                reader.error(node, "\(path).unix-socket", "must be a path of 1 to 107 bytes, e.g. /run/pipe/web.sock")
            } else {
                config.listener = .unixSocket(path: socket)
            }
        }
        if let mount = reader.string(values["path"], "\(path).path"), let node = values["path"] {
            if mount.hasPrefix("/"), mount.hasSuffix("/"), !mount.contains(where: { $0 == "?" || $0 == " " }) {
                config.path = mount
            } else {
                reader.error(node, "\(path).path", "must start and end with /, such as / or /pipe/; found '\(mount)'")
            }
        }
        if let text = reader.string(values["read"], "\(path).read"), let node = values["read"] {
            if let access = WebConfig.ReadAccess(rawValue: text) {
                config.read = access
            } else {
                reader.error(node, "\(path).read", "must be anyone or signed-in, found '\(text)'")
            }
        }
        config.usersFile = reader.string(values["users-file"], "\(path).users-file")
        if let node = values["plain-http"] {
            if let scalar = node.scalar, case .boolean(let value) = scalar.resolved {
                config.plainHTTP = value
            } else {
                reader.error(node, "\(path).plain-http", "must be true or false")
            }
        }
        if let seconds = reader.duration(values["session-time"], "\(path).session-time") {
            config.sessionSeconds = seconds
        }
        if let count = reader.integer(values["sign-ins-per-minute"], "\(path).sign-ins-per-minute", range: 1...1000) {
            config.signInsPerMinute = count
        }
        if let node = values["proxy"] { config.proxy = proxy(node, "\(path).proxy", reader) }
        if let node = values["signoff"], let users = reader.mapping(node, "\(path).signoff", allowed: nil) {
            for (user, patterns) in users {
                config.signoff[user] = reader.strings(patterns, "\(path).signoff.\(user)") ?? []
            }
        }
        if config.usersFile == nil, config.proxy == nil {
            reader.error(
                node, path,
                "says no way to sign in: give users-file (the page's own sign-in, `pipe web users add`) or proxy "
                    + "(identity from a reverse proxy), or both")
        }
        return config
    }

    static func proxy(_ node: YAMLNode, _ path: String, _ reader: ChatOpsConfigLoader.Reader) -> WebConfig.Proxy? {
        guard let fields = reader.mapping(node, path, allowed: proxyKeys) else { return nil }
        var proxy = WebConfig.Proxy()
        for key in ["user-header", "secret-header"] {
            guard let field = fields[key], let name = reader.string(field, "\(path).\(key)") else { continue }
            guard ChatOpsConfigLoader.Reader.isHeaderName(name) else {
                reader.error(field, "\(path).\(key)", "'\(name)' is not a header name (letters, digits and -)")
                continue
            }
            if key == "user-header" { proxy.userHeader = name } else { proxy.secretHeader = name }
        }
        if let field = fields["secret"] { proxy.secret = reader.secretSource(field, "\(path).secret", node: node) }
        if (fields["secret-header"] == nil) != (fields["secret"] == nil) {
            reader.error(
                node, path, "give both secret-header (the header the proxy adds) and secret (where it is read)")
        }
        return proxy
    }
}
