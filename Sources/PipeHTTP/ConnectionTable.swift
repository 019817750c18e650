import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// The open connections of an `HTTPServer`, and the watchdog that gives each a time for its head and a total.
///
/// libmicrohttpd's own timeout only measures idleness, so a client that sends one byte a second would hold a
/// connection for ever. The watchdog shuts down the socket of a connection whose head or whole request has run past
/// its limit; libmicrohttpd then sees the connection fail and closes it. A connection is counted from when it
/// opened, and again from the end of each request it completed (keep-alive); a routed request has its endpoint's
/// total time, and a streamed answer, untimed once begun, is cut when its client stops reading. When the table is
/// over its size, the oldest connection without a request head is cut the same way.
final class ConnectionTable: @unchecked Sendable {
    /// A connection the watchdog cut off.
    struct Cut {
        /// Why it was cut.
        enum Cause {
            case noHead, tooSlow, stalled
        }

        var head: HTTPRequestHead?
        var remoteAddress: String
        var cause: Cause = .noHead
        /// The request it was serving (its endpoint hears of the cut).
        var state: RequestState?
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
    private let watchdogEnded = DispatchGroup()

    private static func key(_ connection: OpaquePointer) -> UInt { UInt(bitPattern: Int(bitPattern: connection)) }

    /// Adds a connection; when that makes more than `limit`, cuts the oldest one still waiting for its request head
    /// (the new one, when every other is busy with a request) and returns it.
    func opened(_ connection: OpaquePointer, descriptor: Int32, remoteAddress: String, limit: Int) -> Cut? {
        lock.lock()
        defer { lock.unlock() }
        let key = Self.key(connection)
        entries[key] = Entry(descriptor: descriptor, remoteAddress: remoteAddress, since: Date())
        let open = entries.values.filter { !$0.cut }
        guard open.count > limit else { return nil }
        let waiting = entries.filter { $0.key != key && !$0.value.cut && $0.value.state == nil }
        let victim = waiting.min { $0.value.since < $1.value.since }?.key ?? key
        guard let entry = entries[victim] else { return nil }
        entries[victim]?.cut = true
        if entry.descriptor >= 0 { _ = shutdown(entry.descriptor, Int32(SHUT_RDWR)) }
        let idleBetweenRequests = entry.served > 0
        return idleBetweenRequests ? nil : Cut(head: nil, remoteAddress: entry.remoteAddress)
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

    /// Closes every streamed answer (the server is stopping), so that their producers end.
    func closeStreams() {
        lock.lock()
        let streams = entries.values.compactMap { $0.state?.stream }
        lock.unlock()
        for stream in streams { stream.close() }
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

    /// - Parameters:
    ///   - limit: the total time of a connection whose request is not routed yet.
    func startWatchdog(head headLimit: Double, total limit: Double, report: @escaping (Cut) -> Void) {
        lock.lock()
        running = true
        lock.unlock()
        watchdogEnded.enter()
        let thread = Thread { [weak self, watchdogEnded] in
            defer { watchdogEnded.leave() }
            while let self, self.isRunning {
                for cut in self.cutExpired(head: headLimit, total: limit) { report(cut) }
                Thread.sleep(forTimeInterval: 0.1)
            }
        }
        thread.name = "pipe-http-watchdog"
        watchdog = thread
        thread.start()
    }

    /// Returns once the watchdog has made its last report.
    func stopWatchdog() {
        lock.lock()
        running = false
        lock.unlock()
        watchdogEnded.wait()
    }

    private var isRunning: Bool {
        lock.lock()
        defer { lock.unlock() }
        return running
    }

    /// Cuts the connections past a limit.
    private func cutExpired(head headLimit: Double, total defaultLimit: Double) -> [Cut] {
        lock.lock()
        defer { lock.unlock() }
        let now = Date()
        var cuts: [Cut] = []
        for (key, entry) in entries where !entry.cut {
            let age = now.timeIntervalSince(entry.since)
            let state = entry.state
            let cause: Cut.Cause
            if let state, let stream = state.stream {
                guard stream.stalled(longerThan: state.limits.stallSeconds, now: now) else { continue }
                cause = .stalled
            } else if age > (state?.limits.requestSeconds ?? defaultLimit) {
                cause = state == nil ? .noHead : .tooSlow
            } else if state == nil && age > headLimit {
                cause = .noHead
            } else {
                continue
            }
            entries[key]?.cut = true
            if entry.descriptor >= 0 { _ = shutdown(entry.descriptor, Int32(SHUT_RDWR)) }
            state?.stream?.close()
            let idleBetweenRequests = state == nil && entry.served > 0
            if (state?.responded != true || cause == .stalled) && !idleBetweenRequests {
                cuts.append(Cut(head: state?.head, remoteAddress: entry.remoteAddress, cause: cause, state: state))
            }
        }
        return cuts
    }
}
