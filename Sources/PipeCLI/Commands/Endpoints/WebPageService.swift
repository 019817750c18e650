import Foundation
import PipeHTTP
import PipeWeb

/// The web page as mounted on a listener, reloadable in place (SIGHUP): the listener keeps serving while the
/// endpoint behind its slot is replaced by one built from the fresh config, keeping the sessions. Where it listens
/// and where it is mounted stay as they were until a restart, and say so.
final class WebPageService: @unchecked Sendable {
    let slot: HTTPHandlerSlot
    private let lock = NSLock()
    private var current: WebEndpoint
    private let build: (WebConfig, WebEndpoint?) throws -> WebEndpoint

    /// - Parameter build: the endpoint of a config, replacing the one given (`nil` at start).
    init(_ config: WebConfig, build: @escaping (WebConfig, WebEndpoint?) throws -> WebEndpoint) throws {
        self.build = build
        current = try build(config, nil)
        slot = HTTPHandlerSlot(current)
    }

    /// The endpoint to mount: the first config's path and limits, with the slot behind them.
    var endpoint: HTTPEndpoint {
        lock.lock()
        defer { lock.unlock() }
        var endpoint = current.endpoint
        endpoint.handler = slot
        return endpoint
    }

    var config: WebConfig {
        lock.lock()
        defer { lock.unlock() }
        return current.config
    }

    /// Applies `fresh` in place; returns what to log: what changed only at the next restart, or why nothing did.
    func reload(_ fresh: WebConfig, from file: String) -> [String] {
        lock.lock()
        defer { lock.unlock() }
        let running = current.config
        let replacement: WebEndpoint
        do {
            replacement = try build(running.keepingRestartOnly(fresh), current)
        } catch {
            return ["web: SIGHUP: \(file) could not be applied: \(error); keeping the config loaded before"]
        }
        current = replacement
        slot.replace(with: replacement)
        return ["web: reloaded \(file); sessions kept"]
            + running.restartOnlyChanges(to: fresh).map { "web: needs a restart: \($0)" }
    }
}

/// The controller's web page, if its config mounted one: a reloaded `web:` section goes to it.
final class WebPageHolder: @unchecked Sendable {
    var page: WebPageService?

    /// What to log of a reloaded controller config's `web:` section (`nil`: none).
    func reload(_ fresh: WebConfig?, from file: String) -> [String] {
        switch (page, fresh) {
        case (nil, nil): return []
        case (nil, .some):
            return ["web: needs a restart: \(file) has a `web:` section now; the controller mounts it when it starts"]
        case (.some, nil):
            return [
                "web: needs a restart: \(file) has no `web:` section now; the page is served as before until the "
                    + "controller restarts"
            ]
        case (.some(let page), .some(let fresh)):
            return page.reload(fresh, from: file)
        }
    }
}
