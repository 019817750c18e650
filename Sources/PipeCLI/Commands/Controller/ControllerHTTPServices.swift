import Foundation
import PipeChatOps
import PipeCore
import PipeHTTP

/// The controller's one HTTP listener and what is mounted on it. Endpoints are collected first (`mount`), then
/// `listen` starts one server for all of them, so a mount conflict stops the controller before anything listens.
final class ControllerHTTPServices {
    private(set) var endpoints: [HTTPEndpoint] = []
    private(set) var server: HTTPServer?
    /// Hears of the refusals that belong to no endpoint (another path, a connection that never sent a head).
    var observer: HTTPRefusalObserver?
    /// What `stop` ends after the listener, in order (the chat-ops endpoint's threads).
    private var stoppers: [() -> Void] = []

    /// Adds an endpoint to serve; `stop` is called when the controller stops, after the listener closed.
    func mount(_ endpoint: HTTPEndpoint, stop: (() -> Void)? = nil) {
        endpoints.append(endpoint)
        if let stop { stoppers.append(stop) }
    }

    /// Starts the listener when anything is mounted; returns the line that says where it listens.
    @discardableResult
    func listen(_ config: ControllerHTTPConfig, project: ProjectFolder) throws -> String? {
        guard !endpoints.isEmpty else { return nil }
        var listener = config.listener
        if case .unixSocket(let path) = listener {
            listener = .unixSocket(path: URL(fileURLWithPath: path, relativeTo: project.url).standardizedFileURL.path)
        }
        let server = try HTTPServer(listener: listener, limits: config.limits, endpoints: endpoints, observer: observer)
        self.server = server
        let paths = endpoints.map { "\($0.name) at \($0.path)" }.joined(separator: ", ")
        return "http: listening on \(Self.describe(listener, port: server.port)): \(paths)"
            + (config.baseURL.map { " (public URL \($0))" } ?? "")
    }

    /// Closes the listener, then ends what the endpoints run.
    func stop() {
        server?.stop()
        server = nil
        for stop in stoppers { stop() }
        stoppers = []
    }

    static func describe(_ listener: HTTPListener, port: UInt16) -> String {
        switch listener {
        case .unixSocket(let path): return "unix:\(path)"
        case .tcp(let address, _):
            return "http://\(address.contains(":") ? "[\(address)]" : address):\(port)"
        }
    }
}
