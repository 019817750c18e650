import Foundation

/// A handler that can be replaced while the server keeps listening (a config reloaded on SIGHUP): each request goes
/// to the handler in the slot when it arrives; requests and streams already under way finish with the one they
/// began with. Thread-safe.
public final class HTTPHandlerSlot: HTTPHandler, @unchecked Sendable {
    private let lock = NSLock()
    private var current: HTTPHandler

    public init(_ handler: HTTPHandler) {
        current = handler
    }

    public var handler: HTTPHandler {
        lock.lock()
        defer { lock.unlock() }
        return current
    }

    /// Puts `handler` in the slot, at once for every request that arrives after.
    public func replace(with handler: HTTPHandler) {
        lock.lock()
        current = handler
        lock.unlock()
    }

    public func refused(_ head: HTTPRequestHead?, remoteAddress: String, status: Int?, reason: String) {
        handler.refused(head, remoteAddress: remoteAddress, status: status, reason: reason)
    }

    public func screen(_ head: HTTPRequestHead) -> HTTPResponse? { handler.screen(head) }

    public func bodyReceiver(for head: HTTPRequestHead) -> HTTPBodyReceiver? { handler.bodyReceiver(for: head) }

    public func respond(to request: HTTPRequest) -> HTTPResponse { handler.respond(to: request) }
}
