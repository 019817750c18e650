import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// The open connections of an `HTTPServer`, and the watchdog that gives each a total time limit.
///
/// libmicrohttpd's own timeout only measures idleness, so a client that sends one byte a second would hold a
/// connection for ever. The watchdog shuts down the socket of a connection whose current request has run past the
/// limit; libmicrohttpd then sees the connection fail and closes it. A connection is counted from when it opened,
/// and again from the end of each request it completed (keep-alive).
final class ConnectionTable: @unchecked Sendable {
    /// A connection the watchdog cut off.
    struct Cut {
        var head: HTTPRequestHead?
        var remoteAddress: String
    }

    private struct Entry {
        var descriptor: Int32
        var remoteAddress: String
        var since: Date
        weak var state: RequestState?
        var cut = false
        /// Requests completed on it: a keep-alive connection that is idle between requests is closed quietly.
        var served = 0
        /// Requests whose head was complete.
        var begun = 0
    }

    private let lock = NSLock()
    private var entries: [UInt: Entry] = [:]
    private var watchdog: Thread?
    private var running = false

    private static func key(_ connection: OpaquePointer) -> UInt { UInt(bitPattern: Int(bitPattern: connection)) }

    func opened(_ connection: OpaquePointer, descriptor: Int32, remoteAddress: String) {
        lock.lock()
        entries[Self.key(connection)] = Entry(descriptor: descriptor, remoteAddress: remoteAddress, since: Date())
        lock.unlock()
    }

    /// libmicrohttpd reports a closed connection before it closes the socket, so a descriptor in the table is
    /// always still this connection's. Returns the peer's address when no request ever began on the connection
    /// and the watchdog did not cut it: libmicrohttpd refused its head (too large: 431) or the peer sent none.
    func closed(_ connection: OpaquePointer) -> String? {
        lock.lock()
        defer { lock.unlock() }
        let entry = entries.removeValue(forKey: Self.key(connection))
        guard let entry, entry.begun == 0, !entry.cut else { return nil }
        return entry.remoteAddress
    }

    func requestBegan(_ connection: OpaquePointer, state: RequestState) {
        lock.lock()
        entries[Self.key(connection)]?.state = state
        entries[Self.key(connection)]?.begun += 1
        lock.unlock()
    }

    func requestEnded(_ connection: OpaquePointer) {
        lock.lock()
        if entries[Self.key(connection)]?.cut == false { entries[Self.key(connection)]?.since = Date() }
        entries[Self.key(connection)]?.state = nil
        entries[Self.key(connection)]?.served += 1
        lock.unlock()
    }

    func wasCut(_ connection: OpaquePointer) -> Bool {
        lock.lock()
        defer { lock.unlock() }
        return entries[Self.key(connection)]?.cut ?? false
    }

    /// Seconds left of the connection's current request.
    func secondsLeft(_ connection: OpaquePointer, limit: Double) -> Double {
        lock.lock()
        defer { lock.unlock() }
        guard let since = entries[Self.key(connection)]?.since else { return limit }
        return limit - Date().timeIntervalSince(since)
    }

    func startWatchdog(limit: Double, report: @escaping (Cut) -> Void) {
        lock.lock()
        running = true
        lock.unlock()
        let thread = Thread { [weak self] in
            while let self, self.isRunning {
                for cut in self.cutExpired(limit: limit) { report(cut) }
                Thread.sleep(forTimeInterval: 0.1)
            }
        }
        thread.name = "pipe-http-watchdog"
        watchdog = thread
        thread.start()
    }

    func stopWatchdog() {
        lock.lock()
        running = false
        lock.unlock()
    }

    private var isRunning: Bool {
        lock.lock()
        defer { lock.unlock() }
        return running
    }

    private func cutExpired(limit: Double) -> [Cut] {
        lock.lock()
        defer { lock.unlock() }
        let now = Date()
        var cuts: [Cut] = []
        for (key, entry) in entries where !entry.cut && now.timeIntervalSince(entry.since) > limit {
            entries[key]?.cut = true
            if entry.descriptor >= 0 { _ = shutdown(entry.descriptor, Int32(SHUT_RDWR)) }
            let idleBetweenRequests = entry.state == nil && entry.served > 0
            if entry.state?.responded != true && !idleBetweenRequests {
                cuts.append(Cut(head: entry.state?.head, remoteAddress: entry.remoteAddress))
            }
        }
        return cuts
    }
}
