import Foundation
import PipeHTTP

/// Sends the messages that follow an acknowledgement to each request's `response_url`, on its own threads, so a
/// slow or failing chat never holds up a run or another request.
///
/// Per channel: messages go in order, at most `maxMessages` of them, none after the channel expires (30 minutes
/// after the request). A post that fails (no connection, 429, 5xx) is retried after 1, 2, 4, 8 s; a 4xx other than
/// 429 is final (the URL expired or was refused). Every delivery, retry and drop is logged.
public final class ResponseNotifier: @unchecked Sendable {
    /// Posts one JSON body to a URL (libcurl by default): the answer's status, or why there is none.
    public typealias Poster = @Sendable (_ body: [UInt8], _ url: String) -> Result<Int, HTTPClientError>

    private let condition = NSCondition()
    private var channels: [ResponseChannel] = []
    private var stopped = false
    private let poster: Poster
    private let log: @Sendable (String) -> Void
    private let retryDelays: [Double]
    private let finished = DispatchGroup()

    /// - Parameters:
    ///   - workers: posting threads (each post may wait up to 10 s on a slow chat).
    ///   - retryDelays: seconds before each retry.
    ///   - log: where deliveries, retries and drops are reported (the server's log).
    public init(
        workers: Int = 2, retryDelays: [Double] = [1, 2, 4, 8],
        poster: @escaping Poster = { ResponseNotifier.postJSON($0, to: $1) },
        log: @escaping @Sendable (String) -> Void
    ) {
        self.poster = poster
        self.log = log
        self.retryDelays = retryDelays
        for index in 0..<max(1, workers) {
            finished.enter()
            let thread = Thread { [self] in
                while let (channel, delivery) = nextDue() { deliver(delivery, on: channel) }
                finished.leave()
            }
            thread.name = "pipe-chatops-notifier-\(index)"
            thread.start()
        }
    }

    /// A channel for one request's `response_url`.
    public func channel(
        url: String, requestedAt: Date, inChannel: Bool, label: String, lifetime: TimeInterval = 30 * 60,
        maxMessages: Int = 5
    ) -> ResponseChannel {
        ResponseChannel(
            url: url, expires: requestedAt.addingTimeInterval(lifetime), inChannel: inChannel,
            maxMessages: maxMessages, label: label)
    }

    /// Queues `text` for `channel` and returns at once; `false` when the channel has no room left or expired (the
    /// message is dropped and logged).
    @discardableResult
    public func send(_ text: String, to channel: ResponseChannel, summary: String, now: Date = Date()) -> Bool {
        let object: [String: Any] = [
            "response_type": channel.inChannel ? "in_channel" : "ephemeral", "text": text,
            "replace_original": false,
        ]
        guard
            let body = try? JSONSerialization.data(
                withJSONObject: object, options: [.sortedKeys, .withoutEscapingSlashes])
        else {
            return false
        }
        channel.lock.lock()
        let expired = now >= channel.expires
        let full = channel.accepted >= channel.maxMessages
        if !expired && !full {
            channel.accepted += 1
            channel.pending.append(.init(body: Array(body), summary: summary, notBefore: now))
        }
        channel.lock.unlock()
        if expired || full {
            log(
                "chatops: dropped \(summary) for \(channel.label): the response_url "
                    + (expired ? "expired" : "already took \(channel.maxMessages) messages"))
            return false
        }
        condition.lock()
        if !channels.contains(where: { $0 === channel }) { channels.append(channel) }
        condition.broadcast()
        condition.unlock()
        return true
    }

    /// Stops the threads after the messages that are due now; later retries are dropped.
    public func stop() {
        condition.lock()
        stopped = true
        condition.broadcast()
        condition.unlock()
        finished.wait()
    }

    /// Whether every channel has sent (or dropped) all it was given.
    public var isIdle: Bool {
        condition.lock()
        defer { condition.unlock() }
        return channels.isEmpty
    }

    // MARK: - Workers

    /// The first message of a channel not being posted to, once its time has come; `nil` when stopped.
    private func nextDue() -> (ResponseChannel, ResponseChannel.Delivery)? {
        condition.lock()
        defer { condition.unlock() }
        while true {
            let now = Date()
            var earliest: Date?
            channels.removeAll { channel in
                channel.lock.lock()
                defer { channel.lock.unlock() }
                return channel.pending.isEmpty && !channel.busy
            }
            for channel in channels {
                channel.lock.lock()
                defer { channel.lock.unlock() }
                guard !channel.busy, let first = channel.pending.first else { continue }
                if first.notBefore <= now {
                    channel.busy = true
                    return (channel, channel.pending.removeFirst())
                }
                earliest = min(earliest ?? first.notBefore, first.notBefore)
            }
            if stopped { return nil }
            if let earliest {
                _ = condition.wait(until: earliest)
            } else {
                condition.wait()
            }
        }
    }

    /// Posts `body` as JSON with libcurl, waiting at most 10 s; the answer's body is not needed and not kept.
    public static func postJSON(_ body: [UInt8], to url: String) -> Result<Int, HTTPClientError> {
        let request = HTTPClientRequest(
            "POST", url, headers: [("Content-Type", "application/json")], body: body, maxResponseBytes: 4096,
            totalSeconds: 10)
        return Result { () throws(HTTPClientError) in try HTTPClient().send(request).status }
    }

    private func deliver(_ delivery: ResponseChannel.Delivery, on channel: ResponseChannel) {
        var delivery = delivery
        delivery.attempts += 1
        let outcome = poster(delivery.body, channel.url)
        var retryAt: Date?
        switch outcome {
        case .success(let status) where (200..<300).contains(status):
            if delivery.attempts > 1 {
                log("chatops: sent \(delivery.summary) for \(channel.label) on attempt \(delivery.attempts)")
            }
        case .success(let status) where status != 429 && (400..<500).contains(status):
            log("chatops: the response_url refused \(delivery.summary) for \(channel.label) with HTTP \(status)")
        default:
            let why: String
            switch outcome {
            case .success(let status): why = "HTTP \(status)"
            case .failure(let error): why = error.message
            }
            if delivery.attempts <= retryDelays.count {
                let wait = retryDelays[delivery.attempts - 1]
                let at = Date().addingTimeInterval(wait)
                if at < channel.expires {
                    retryAt = at
                    log(
                        "chatops: posting \(delivery.summary) for \(channel.label) failed (\(why)); retry "
                            + "\(delivery.attempts) of \(retryDelays.count) in \(Int(wait)) s")
                }
            }
            if retryAt == nil {
                log(
                    "chatops: gave up on \(delivery.summary) for \(channel.label) after \(delivery.attempts) attempts: \(why)"
                )
            }
        }
        channel.lock.lock()
        if let retryAt {
            delivery.notBefore = retryAt
            channel.pending.insert(delivery, at: 0)
        }
        channel.busy = false
        channel.lock.unlock()
        condition.lock()
        condition.broadcast()
        condition.unlock()
    }
}
