import Foundation

/// A flag set once by Ctrl-C, SIGTERM or a controller, read by every wait loop.
///
/// Blocking loops poll it at least every 100 ms, so cancellation takes effect promptly without signals inside C code.
public final class CancellationToken: @unchecked Sendable {
    private let lock = NSLock()
    private var reason: String?

    public init() {}

    public func cancel(reason: String = "cancelled by the user") {
        lock.lock()
        defer { lock.unlock() }
        if self.reason == nil { self.reason = reason }
    }

    public var isCancelled: Bool {
        lock.lock()
        defer { lock.unlock() }
        return reason != nil
    }

    public var cancellationReason: String? {
        lock.lock()
        defer { lock.unlock() }
        return reason
    }
}
