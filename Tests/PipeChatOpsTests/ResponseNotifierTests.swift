import Foundation
import PipeChatOps
import PipeHTTP
import XCTest

/// Messages to a response URL over real HTTP (libcurl to a libmicrohttpd receiver): order, retries with backoff,
/// the 5-message budget, expiry, and a refusal that is not retried.
final class ResponseNotifierTests: XCTestCase {
    private var receiver: HTTPServer?
    private var notifier: ResponseNotifier?
    private let logLines = LogLines()

    final class LogLines: @unchecked Sendable {
        private let lock = NSLock()
        private var lines: [String] = []
        func append(_ line: String) {
            lock.lock()
            lines.append(line)
            lock.unlock()
        }
        var all: [String] {
            lock.lock()
            defer { lock.unlock() }
            return lines
        }
    }

    override func tearDown() {
        notifier?.stop()
        receiver?.stop()
        super.tearDown()
    }

    /// The chat's side of a response URL: keeps each post and answers with the next status given (then 200).
    final class Receiver: HTTPHandler, @unchecked Sendable {
        private let lock = NSLock()
        private var kept: [HTTPRequest] = []
        let statuses: LockedQueue

        init(statuses: [Int]) { self.statuses = LockedQueue(statuses) }

        func respond(to request: HTTPRequest) -> HTTPResponse {
            lock.lock()
            kept.append(request)
            lock.unlock()
            return .text(statuses.next() ?? 200, "ok")
        }

        func refused(_ head: HTTPRequestHead?, remoteAddress: String, status: Int?, reason: String) {}

        var requests: [HTTPRequest] {
            lock.lock()
            defer { lock.unlock() }
            return kept
        }
    }

    private func startReceiver(statuses: [Int] = []) throws -> (Receiver, String) {
        let recorder = Receiver(statuses: statuses)
        let server = try HTTPServer(
            address: "127.0.0.1", port: 0, limits: HTTPServerLimits(), delegate: recorder)
        receiver = server
        return (recorder, "http://127.0.0.1:\(server.port)/response/1")
    }

    final class LockedQueue: @unchecked Sendable {
        private let lock = NSLock()
        private var items: [Int]
        init(_ items: [Int]) { self.items = items }
        func next() -> Int? {
            lock.lock()
            defer { lock.unlock() }
            return items.isEmpty ? nil : items.removeFirst()
        }
    }

    private func makeNotifier() -> ResponseNotifier {
        let lines = logLines
        let notifier = ResponseNotifier(retryDelays: [0.05, 0.1, 0.2]) { lines.append($0) }
        self.notifier = notifier
        return notifier
    }

    private func waitUntilIdle(_ notifier: ResponseNotifier, seconds: Double = 5) {
        let deadline = Date().addingTimeInterval(seconds)
        while !notifier.isIdle && Date() < deadline { Thread.sleep(forTimeInterval: 0.02) }
        XCTAssertTrue(notifier.isIdle, "the notifier still has messages after \(seconds) s")
    }

    private func texts(_ recorder: Receiver) throws -> [String] {
        try recorder.requests.map { request in
            let object = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(request.body)) as? [String: Any])
            return try XCTUnwrap(object["text"] as? String)
        }
    }

    func testMessagesArriveInOrderAsJSONForTheChannel() throws {
        let (recorder, url) = try startReceiver()
        let notifier = makeNotifier()
        let channel = notifier.channel(url: url, requestedAt: Date(), inChannel: true, label: "alice")
        for index in 1...3 { XCTAssertTrue(notifier.send("message \(index)", to: channel, summary: "m\(index)")) }
        waitUntilIdle(notifier)
        XCTAssertEqual(try texts(recorder), ["message 1", "message 2", "message 3"])
        let first = try XCTUnwrap(
            try JSONSerialization.jsonObject(with: Data(recorder.requests[0].body)) as? [String: Any])
        XCTAssertEqual(first["response_type"] as? String, "in_channel")
    }

    func testAFailingResponseURLIsRetriedWithBackoffAndLogged() throws {
        let (recorder, url) = try startReceiver(statuses: [500, 503])
        let notifier = makeNotifier()
        let channel = notifier.channel(url: url, requestedAt: Date(), inChannel: false, label: "alice")
        let started = Date()
        notifier.send("the verdict", to: channel, summary: "the verdict")
        notifier.send("the end", to: channel, summary: "the end")
        waitUntilIdle(notifier)
        XCTAssertEqual(try texts(recorder), ["the verdict", "the verdict", "the verdict", "the end"])
        XCTAssertGreaterThanOrEqual(Date().timeIntervalSince(started), 0.15, "waited 0.05 s then 0.1 s")
        XCTAssertTrue(logLines.all.contains { $0.contains("failed (HTTP 500); retry 1 of 3") }, "\(logLines.all)")
        XCTAssertTrue(
            logLines.all.contains { $0.contains("sent the verdict for alice on attempt 3") }, "\(logLines.all)")
    }

    func testARefusalIsFinalAndAnUnreachableURLIsGivenUp() throws {
        let (recorder, url) = try startReceiver(statuses: [404])
        let notifier = makeNotifier()
        notifier.send(
            "x", to: notifier.channel(url: url, requestedAt: Date(), inChannel: false, label: "a"), summary: "x")
        waitUntilIdle(notifier)
        XCTAssertEqual(recorder.requests.count, 1, "a 404 is not retried")
        XCTAssertTrue(logLines.all.contains { $0.contains("refused x for a with HTTP 404") }, "\(logLines.all)")

        let closed = "http://127.0.0.1:1/nothing-listens"
        notifier.send(
            "y", to: notifier.channel(url: closed, requestedAt: Date(), inChannel: false, label: "b"), summary: "y")
        waitUntilIdle(notifier)
        XCTAssertTrue(logLines.all.contains { $0.contains("gave up on y for b after 4 attempts") }, "\(logLines.all)")
    }

    func testAtMostFiveMessagesAndNoneAfterExpiry() throws {
        let (recorder, url) = try startReceiver()
        let notifier = makeNotifier()
        let channel = notifier.channel(url: url, requestedAt: Date(), inChannel: false, label: "alice")
        let accepted = (1...7).map { notifier.send("m\($0)", to: channel, summary: "m\($0)") }
        XCTAssertEqual(accepted, [true, true, true, true, true, false, false])
        let expired = notifier.channel(
            url: url, requestedAt: Date().addingTimeInterval(-31 * 60), inChannel: false, label: "old")
        XCTAssertFalse(notifier.send("late", to: expired, summary: "late"))
        waitUntilIdle(notifier)
        XCTAssertEqual(try texts(recorder), ["m1", "m2", "m3", "m4", "m5"])
        XCTAssertTrue(logLines.all.contains { $0.contains("already took 5 messages") })
        XCTAssertTrue(logLines.all.contains { $0.contains("dropped late for old: the response_url expired") })
    }
}
