import Foundation
import PipeCore

/// The second part of a download split in two (`RemoteScript.archiveDownload`): its own session, opened for it and
/// closed after it, driven on its own thread while the first part arrives on the caller's — libssh2 sessions are
/// used by one thread at a time, and two of them decrypt on two cores.
final class SecondDownloadPart: @unchecked Sendable {
    private let lock = NSLock()
    private var stopped = false
    /// Why no second session could be opened; the caller then runs the part on its own session.
    private var unavailable: Error?
    private var outcome: Result<SSHRemoteHost.ReceivedStream, Error>?
    private let finished = DispatchSemaphore(value: 0)
    private var waited = false

    /// - Parameter plan: the first part's plan line, which this part's must repeat (but for its bytes).
    init(
        source: SSHRemoteHost.DownloadSource, plan: [Substring], open: @escaping @Sendable () throws -> SSHSession,
        graceSeconds: Double,
        stallSeconds: Double, fault: ((inout [UInt8]) -> Void)?, cancellation: CancellationToken
    ) {
        let box = FaultBox(fault)
        Thread.detachNewThread { [self] in
            defer { finished.signal() }
            let session: SSHSession
            do {
                session = try open()
            } catch {
                lock.withLock { unavailable = error }
                return
            }
            defer { session.disconnect() }
            let helper = SSHRemoteHost(
                session: session, terminationGraceSeconds: graceSeconds, transferStallSeconds: stallSeconds)
            helper.downloadChunkFault = box.fault
            let result = Result {
                try helper.receiveDownloadPart(
                    source, part: 2, plan: plan, cancellation: cancellation,
                    stop: { [self] in cancellation.isCancelled || self.lock.withLock { self.stopped } })
            }
            lock.withLock { outcome = result }
        }
    }

    /// Whether the part had a session of its own (once `wait()` returned).
    var hadItsOwnSession: Bool { lock.withLock { waited && unavailable == nil } }

    /// Waits for the part; `nil` when no second session could be opened. Rethrows the part's failure.
    func wait() throws -> SSHRemoteHost.ReceivedStream? {
        finished.wait()
        let (unavailable, outcome) = lock.withLock {
            waited = true
            return (self.unavailable, self.outcome)
        }
        if unavailable != nil { return nil }
        return try outcome?.get()
    }

    /// Stops the part if it still runs, and waits for its thread: its extraction writes into the staging folder.
    func abandon() {
        let alreadyWaited = lock.withLock {
            stopped = true
            return waited
        }
        if !alreadyWaited {
            finished.wait()
            lock.withLock { waited = true }
        }
    }
}

/// The tests' fault hook, handed to the second part's thread.
private final class FaultBox: @unchecked Sendable {
    let fault: ((inout [UInt8]) -> Void)?
    init(_ fault: ((inout [UInt8]) -> Void)?) { self.fault = fault }
}
