import Foundation
import PipeChatOps
import PipeCore

/// What `pipe chatops serve` and the controller's `chatops:` key both do around starting the endpoint, so the two
/// read the same keys the same way.
enum ChatOpsSetup {
    /// The request secret and the proxy's secret (when `proxy.secret` is set), read relative to the config file.
    static func secrets(of config: ChatOpsConfig, configURL: URL, environment: [String: String]) throws -> (
        secret: String, proxySecret: String?
    ) {
        func read(_ source: SecretSource) throws -> String {
            try ChatOpsSecret.read(
                source, environment: environment, baseDirectory: configURL.deletingLastPathComponent())
        }
        return (try read(config.secret), try config.proxy?.secret.map { try read($0) })
    }

    /// `config` with its Unix socket made absolute against the project folder.
    static func resolvingSocket(_ config: ChatOpsConfig, in project: ProjectFolder) -> ChatOpsConfig {
        var config = config
        if let socket = config.unixSocket {
            config.unixSocket = URL(fileURLWithPath: socket, relativeTo: project.url).standardizedFileURL.path
        }
        return config
    }

    /// Where the endpoint listens, for the first line it prints.
    static func listening(_ config: ChatOpsConfig, port: UInt16) -> String {
        if let socket = config.unixSocket { return "unix:\(socket) at \(config.path)" }
        let host = config.address.contains(":") ? "[\(config.address)]" : config.address
        return "http://\(host):\(port)\(config.path)"
    }
}
