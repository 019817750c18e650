import Foundation

/// Where verified signatures are remembered: this process (`ReplayCache`), or the run store every controller
/// shares (`SharedRequestGuard`).
public protocol ReplayGuard: Sendable {
    /// Remembers `signature`; `false` when it was already seen (a replay). Throws when it cannot tell.
    func claim(_ signature: [UInt8], now: Date) throws -> Bool
}

/// Signatures accepted recently: a signature seen again while its timestamp is still inside the window is a replay.
///
/// Keyed by the signature's bytes, not by how they were written, so the same signature in other letter case (hex
/// digits) is the same signature. Only signatures that verified are remembered (an attacker cannot fill it with
/// junk), and each is forgotten once its timestamp can no longer pass the window check anyway. Thread-safe.
public final class ReplayCache: ReplayGuard, @unchecked Sendable {
    private let lock = NSLock()
    private var seen: Set<[UInt8]> = []
    /// In arrival order with one lifetime for all, so the oldest is always first.
    private var expiries: [(at: Date, signature: [UInt8])] = []
    private var head = 0
    private let lifetime: TimeInterval

    /// - Parameter window: the timestamp window; a signature is kept for twice that (a timestamp may be up to one
    ///   window in the future and then stays valid for one more).
    public init(window: TimeInterval) { lifetime = 2 * window }

    /// Remembers `signature` (its decoded bytes); `false` when it was already seen (a replay).
    public func claim(_ signature: [UInt8], now: Date = Date()) -> Bool {
        lock.lock()
        defer { lock.unlock() }
        while head < expiries.count, expiries[head].at <= now {
            seen.remove(expiries[head].signature)
            head += 1
        }
        if head > 1024, head * 2 > expiries.count {
            expiries.removeFirst(head)
            head = 0
        }
        guard seen.insert(signature).inserted else { return false }
        expiries.append((now.addingTimeInterval(lifetime), signature))
        return true
    }

    /// How many signatures are remembered.
    public var count: Int {
        lock.lock()
        defer { lock.unlock() }
        return seen.count
    }
}
