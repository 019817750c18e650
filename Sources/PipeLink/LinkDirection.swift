import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// One direction of a relayed connection: a reader thread takes what arrives, stamps when the token bucket lets it
/// leave plus the one-way delay, and a writer thread hands it on at that time. Ordering is the arrival order;
/// when the queue holds `queueBytes` the reader stops reading, and the sender's TCP feels it as a full link.
final class LinkDirection: @unchecked Sendable {
    static let readBytes = 16 * 1024

    private struct Chunk {
        let deliverAt: Double
        let bytes: [UInt8]
    }

    private let source: Int32
    private let destination: Int32
    private let oneWaySeconds: Double
    private let queueBytes: Int
    private var bucket: TokenBucket
    private let condition = NSCondition()
    private var queue: [Chunk] = []
    private var head = 0
    private var queuedBytes = 0
    private var sourceEnded = false
    private var failed = false
    private var stats = LinkStatistics()
    private let done = DispatchSemaphore(value: 0)

    init(from source: Int32, to destination: Int32, profile: LinkProfile) {
        self.source = source
        self.destination = destination
        oneWaySeconds = profile.oneWaySeconds
        queueBytes = profile.queueBytes
        bucket = TokenBucket(
            bytesPerSecond: profile.bytesPerSecond, burstBytes: profile.burstBytes, startingAt: MonotonicClock.now())
    }

    func start() {
        let reader = Thread { [self] in
            read()
            done.signal()
        }
        let writer = Thread { [self] in
            write()
            done.signal()
        }
        reader.start()
        writer.start()
    }

    /// Waits for both threads and gives what this direction moved.
    func finish() -> LinkStatistics {
        done.wait()
        done.wait()
        condition.lock()
        defer { condition.unlock() }
        return stats
    }

    private func read() {
        var buffer = [UInt8](repeating: 0, count: Self.readBytes)
        while true {
            let count = buffer.withUnsafeMutableBytes { recv(source, $0.baseAddress, $0.count, 0) }
            if count < 0 && errno == EINTR { continue }
            condition.lock()
            guard count > 0 else {
                sourceEnded = true
                condition.broadcast()
                condition.unlock()
                return
            }
            while queuedBytes >= queueBytes && !failed { condition.wait() }
            if failed {
                condition.unlock()
                return
            }
            let leaves = bucket.departure(of: count, arrivingAt: MonotonicClock.now())
            queue.append(Chunk(deliverAt: leaves + oneWaySeconds, bytes: Array(buffer[0..<count])))
            queuedBytes += count
            condition.broadcast()
            condition.unlock()
        }
    }

    private func write() {
        while true {
            condition.lock()
            while head == queue.count && !sourceEnded && !failed { condition.wait() }
            if failed {
                condition.unlock()
                return
            }
            if head == queue.count {
                condition.unlock()
                shutdown(destination, Int32(SHUT_WR))
                return
            }
            let chunk = queue[head]
            condition.unlock()
            MonotonicClock.sleep(until: chunk.deliverAt)
            let lateness = MonotonicClock.now() - chunk.deliverAt
            let delivered = chunk.bytes.withUnsafeBytes { LoopbackSocket.sendAll(destination, $0) }
            condition.lock()
            head += 1
            if head > 1024 && head * 2 > queue.count {
                queue.removeFirst(head)
                head = 0
            }
            queuedBytes -= chunk.bytes.count
            if delivered {
                stats.record(bytes: chunk.bytes.count, latenessSeconds: lateness)
            } else {
                failed = true
            }
            condition.broadcast()
            condition.unlock()
            if !delivered {
                shutdown(source, Int32(SHUT_RDWR))
                return
            }
        }
    }
}

/// What one direction (or a whole relay) moved, and how late the relay handed chunks on against the times its
/// pacing set: its own accuracy on a loaded machine.
public struct LinkStatistics: Sendable, Equatable {
    public private(set) var bytes = 0
    public private(set) var chunks = 0
    public private(set) var latenessSum = 0.0
    public private(set) var latenessMaximum = 0.0
    /// Chunks handed on more than a millisecond after their time.
    public private(set) var lateChunks = 0

    public init() {}

    mutating func record(bytes count: Int, latenessSeconds: Double) {
        bytes += count
        chunks += 1
        latenessSum += latenessSeconds
        latenessMaximum = max(latenessMaximum, latenessSeconds)
        if latenessSeconds > 0.001 { lateChunks += 1 }
    }

    public mutating func add(_ other: LinkStatistics) {
        bytes += other.bytes
        chunks += other.chunks
        latenessSum += other.latenessSum
        latenessMaximum = max(latenessMaximum, other.latenessMaximum)
        lateChunks += other.lateChunks
    }

    public var latenessMean: Double { chunks == 0 ? 0 : latenessSum / Double(chunks) }
}
