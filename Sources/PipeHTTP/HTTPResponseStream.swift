import Foundation

/// The body of a streamed answer between its producer's thread and the connection's: a bounded buffer, so a
/// client that reads slowly slows the producer down (backpressure) instead of growing the server's memory.
///
/// The connection closes the stream when the client goes away or the watchdog cuts it; from then on `write`
/// returns `false` at once and `pause` returns early, so the producer ends.
public final class HTTPResponseStream: @unchecked Sendable {
    private let condition = NSCondition()
    private var buffer: [UInt8] = []
    private var start = 0
    private let capacity: Int
    private var finished = false
    private var closed = false
    private var lastTaken = Date()

    init(capacity: Int) { self.capacity = capacity }

    /// Appends `bytes`, waiting while the buffer is full; `false` once the client has gone (nothing more is sent).
    @discardableResult
    public func write(_ bytes: [UInt8]) -> Bool {
        var rest = bytes[...]
        condition.lock()
        defer { condition.unlock() }
        while !rest.isEmpty {
            while !closed, !finished, buffer.count - start >= capacity { condition.wait() }
            guard !closed, !finished else { return false }
            let room = capacity - (buffer.count - start)
            buffer.append(contentsOf: rest.prefix(room))
            rest = rest.dropFirst(room)
            condition.broadcast()
        }
        return true
    }

    /// Appends UTF-8 text.
    @discardableResult
    public func write(_ text: String) -> Bool { write(Array(text.utf8)) }

    /// Ends the body: what was written is still sent, then the answer ends.
    public func finish() {
        condition.lock()
        finished = true
        condition.broadcast()
        condition.unlock()
    }

    /// Whether the client is still there.
    public var isOpen: Bool {
        condition.lock()
        defer { condition.unlock() }
        return !closed
    }

    /// Waits `seconds` (a producer waiting for more to send); `false`, and early, when the client has gone.
    public func pause(seconds: Double) -> Bool {
        let until = Date().addingTimeInterval(seconds)
        condition.lock()
        defer { condition.unlock() }
        while !closed, Date() < until { _ = condition.wait(until: until) }
        return !closed
    }

    // MARK: - The connection's side

    /// What `take` found.
    enum Piece: Equatable {
        case bytes(Int)
        case end
        case failed
    }

    /// Copies up to `count` bytes into `destination`, waiting for some; checks `clientGone` while it waits.
    func take(into destination: UnsafeMutableRawPointer, count: Int, clientGone: () -> Bool) -> Piece {
        condition.lock()
        defer { condition.unlock() }
        while true {
            if closed { return .failed }
            let available = buffer.count - start
            if available > 0 {
                let taken = min(available, count)
                buffer.withUnsafeBytes { source in
                    destination.copyMemory(from: source.baseAddress! + start, byteCount: taken)
                }
                start += taken
                if start == buffer.count || start > capacity {
                    buffer.removeFirst(start)
                    start = 0
                }
                lastTaken = Date()
                condition.broadcast()
                return .bytes(taken)
            }
            if finished { return .end }
            _ = condition.wait(until: Date().addingTimeInterval(0.1))
            if clientGone() {
                closed = true
                condition.broadcast()
                return .failed
            }
        }
    }

    /// Whether unread bytes have waited longer than `seconds`: the client stopped reading.
    func stalled(longerThan seconds: Double, now: Date = Date()) -> Bool {
        condition.lock()
        defer { condition.unlock() }
        return !closed && buffer.count > start && now.timeIntervalSince(lastTaken) > seconds
    }

    /// The client went away or the connection was cut.
    func close() {
        condition.lock()
        closed = true
        condition.broadcast()
        condition.unlock()
    }
}
