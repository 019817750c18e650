import Foundation
import PipeBasics

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Bytes an archive producer sends: a workspace's tar stream, or that stream compressed
/// (`GzipArchiveSource`, `ZstdArchiveSource`).
protocol ArchiveSource: AnyObject {
    /// Fills `buffer` from the start; 0 means the archive ended.
    func fill(_ buffer: UnsafeMutableRawBufferPointer) throws -> Int
}

extension WorkspaceTarStream: ArchiveSource {}

/// Makes a workspace sync's tar archive (`WorkspaceTarStream`, or it compressed) on a thread of its own, a few chunks
/// ahead of the channel: reading the files, digesting each and writing the headers then run on one core while libssh2
/// encrypts on another. (The whole archive is not digested: SSH's MAC vouches for it, see
/// `RemoteScript.syncWorkspace`.) On one thread both took turns, and libssh2 1.10's 16-byte cipher calls
/// already fill a core on this kind of machine (docs/performance.md).
///
/// Memory stays flat: at most `depth` chunks of `chunkSize` bytes wait. The channel's thread polls `wakeDescriptor`,
/// which becomes readable when a chunk is ready (or the archive ended or failed).
final class WorkspaceArchiveProducer: @unchecked Sendable {
    static let chunkSize = 256 * 1024
    static let depth = 4

    /// A chunk ready for the channel: its buffer (given back with `recycle`) and how many bytes it holds.
    struct Chunk {
        var buffer: UnsafeMutableRawBufferPointer
        var count: Int
    }

    enum Next {
        case chunk(Chunk)
        /// Nothing ready yet: wait on `wakeDescriptor`.
        case waiting
        case ended
    }

    private let condition = NSCondition()
    private var free: [UnsafeMutableRawBufferPointer]
    private var ready: [Chunk] = []
    private var ended = false
    private var failure: Error?
    private var stopped = false
    private var running = true
    private let all: [UnsafeMutableRawBufferPointer]
    private let wakeRead: Int32
    private let wakeWrite: Int32
    /// The whole archive's length, complete once `next()` said `.ended`.
    private var bytes: Int64 = 0

    /// - Throws: `WorkspaceScanner.Failure` when no pipe can be made (out of descriptors).
    init(stream: ArchiveSource) throws {
        all = (0..<Self.depth).map { _ in .allocate(byteCount: Self.chunkSize, alignment: 16) }
        free = all
        var ends: [Int32] = [0, 0]
        guard pipe(&ends) == 0 else {
            let reason = String(cString: strerror(errno))
            for buffer in all { buffer.deallocate() }
            throw WorkspaceScanner.Failure(message: "cannot start sending the workspace: \(reason)")
        }
        for end in ends {
            _ = fcntl(end, F_SETFL, fcntl(end, F_GETFL) | O_NONBLOCK)
            _ = fcntl(end, F_SETFD, FD_CLOEXEC)
        }
        (wakeRead, wakeWrite) = (ends[0], ends[1])
        Thread.detachNewThread { [self] in produce(stream) }
    }

    deinit {
        for buffer in all { buffer.deallocate() }
        close(wakeRead)
        close(wakeWrite)
    }

    private func produce(_ stream: ArchiveSource) {
        defer {
            condition.lock()
            running = false
            condition.broadcast()
            condition.unlock()
            wake()
        }
        while true {
            condition.lock()
            while free.isEmpty && !stopped { condition.wait() }
            if stopped {
                condition.unlock()
                return
            }
            let buffer = free.removeLast()
            condition.unlock()
            let result = Result { try stream.fill(buffer) }
            condition.lock()
            switch result {
            case .success(let count) where count > 0:
                bytes += Int64(count)
                ready.append(Chunk(buffer: buffer, count: count))
            case .success:
                free.append(buffer)
                ended = true
            case .failure(let error):
                free.append(buffer)
                failure = error
            }
            let done = ended || failure != nil
            condition.unlock()
            wake()
            if done { return }
        }
    }

    private func wake() {
        var byte: UInt8 = 1
        _ = write(wakeWrite, &byte, 1)  // a full pipe already wakes the reader
    }

    /// The next chunk, in order, without waiting. Rethrows the producer's failure (a file that cannot be read).
    func next() throws -> Next {
        var sink = [UInt8](repeating: 0, count: 64)
        while read(wakeRead, &sink, sink.count) > 0 {}
        condition.lock()
        defer { condition.unlock() }
        if !ready.isEmpty { return .chunk(ready.removeFirst()) }
        if let failure { throw failure }
        return ended ? .ended : .waiting
    }

    /// Gives a chunk's buffer back once the channel took all of it.
    func recycle(_ chunk: Chunk) {
        condition.lock()
        free.append(chunk.buffer)
        condition.signal()
        condition.unlock()
    }

    /// What the channel's thread polls while it waits for a chunk.
    var wakeDescriptor: pollfd { pollfd(fd: wakeRead, events: Int16(POLLIN), revents: 0) }

    /// The archive's length; call once `next()` said `.ended`.
    func finish() -> Int64 {
        condition.lock()
        defer { condition.unlock() }
        return bytes
    }

    /// Stops the producer (the sync failed or ended) and waits for its thread, which reads the workspace's files.
    func stop() {
        condition.lock()
        stopped = true
        condition.broadcast()
        while running { condition.wait() }
        condition.unlock()
    }
}
