import Foundation
import PipeHTTP
import PipeTestSupport
import XCTest

/// Streamed answers over real sockets: read while they are written, held back by a client that stops reading,
/// and ended when the client goes away.
final class HTTPStreamingTests: XCTestCase {
    private var server: HTTPServer?

    override func tearDown() {
        server?.stop()
        super.tearDown()
    }

    /// Answers every request with `produce`, and keeps what the producer saw.
    final class Streamer: HTTPHandler, @unchecked Sendable {
        let produce: @Sendable (HTTPResponseStream) -> Void
        let bufferBytes: Int
        private let lock = NSLock()
        private var reasons: [String] = []

        init(bufferBytes: Int = 64 * 1024, produce: @escaping @Sendable (HTTPResponseStream) -> Void) {
            self.bufferBytes = bufferBytes
            self.produce = produce
        }

        func respond(to request: HTTPRequest) -> HTTPResponse {
            .streamed(200, contentType: "text/plain; charset=utf-8", bufferBytes: bufferBytes, produce: produce)
        }

        func refused(_ head: HTTPRequestHead?, remoteAddress: String, status: Int?, reason: String) {
            lock.lock()
            reasons.append(reason)
            lock.unlock()
        }

        var refusalReasons: [String] {
            lock.lock()
            defer { lock.unlock() }
            return reasons
        }
    }

    /// What a producer did, shared with the test.
    final class Progress: @unchecked Sendable {
        private let lock = NSLock()
        private var bytes = 0
        private var ended: Date?

        func wrote(_ count: Int) {
            lock.lock()
            bytes += count
            lock.unlock()
        }

        func end() {
            lock.lock()
            ended = Date()
            lock.unlock()
        }

        var written: Int {
            lock.lock()
            defer { lock.unlock() }
            return bytes
        }

        var endedAt: Date? {
            lock.lock()
            defer { lock.unlock() }
            return ended
        }

        func waitForEnd(seconds: Double) -> Date? {
            let deadline = Date().addingTimeInterval(seconds)
            while endedAt == nil, Date() < deadline { Thread.sleep(forTimeInterval: 0.02) }
            return endedAt
        }
    }

    private func start(_ handler: Streamer, stallSeconds: Double = 30) throws -> UInt16 {
        let server = try HTTPServer(
            listener: .tcp(address: "127.0.0.1", port: 0), limits: HTTPServerLimits(),
            endpoints: [
                HTTPEndpoint(
                    "log", path: .prefix("/runs/"), methods: ["GET"],
                    limits: HTTPEndpointLimits(requestSeconds: 1, stallSeconds: stallSeconds), handler: handler)
            ])
        self.server = server
        return server.port
    }

    private static let get = "GET /runs/1/log HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n"

    func testAStreamedAnswerIsReadWhileItIsWrittenAndOutlastsTheTotalTime() throws {
        let next = DispatchSemaphore(value: 0)
        let port = try start(
            Streamer { stream in
                stream.write("first line\n")
                _ = next.wait(timeout: .now() + 10)
                // Past the endpoint's 1 s total time: a streamed answer is not timed once it has begun.
                _ = stream.pause(seconds: 1.5)
                stream.write("second line\n")
            })
        let client = try SocketClient(port: port)
        client.send(Self.get)
        let first = client.read(until: "first line\n", seconds: 2)
        XCTAssertTrue(first.hasPrefix("HTTP/1.1 200"), first)
        XCTAssertTrue(first.contains("first line\n"), "read before the producer wrote more: \(first)")
        XCTAssertFalse(first.contains("second line"))
        XCTAssertTrue(first.lowercased().contains("transfer-encoding: chunked"), first)
        next.signal()
        let rest = client.readAll(seconds: 4)
        XCTAssertTrue(rest.contains("second line\n"), rest)
        XCTAssertTrue(rest.hasSuffix("0\r\n\r\n"), "the answer ended: \(rest.debugDescription)")
    }

    func testAClientThatStopsReadingHoldsTheProducerBackAndIsCutAtTheStallLimit() throws {
        let progress = Progress()
        let piece = [UInt8](repeating: UInt8(ascii: "z"), count: 64 * 1024)
        let handler = Streamer(bufferBytes: 64 * 1024) { stream in
            while progress.written < 500 * 1024 * 1024, stream.write(piece) { progress.wrote(piece.count) }
            progress.end()
        }
        let port = try start(handler, stallSeconds: 1)
        let client = try SocketClient(port: port)
        client.send(Self.get)
        _ = client.read(upTo: 100, seconds: 2)
        Thread.sleep(forTimeInterval: 0.5)
        // The buffer and the sockets' own room, not the 500 MB the producer would write.
        XCTAssertLessThan(progress.written, 32 * 1024 * 1024, "backpressure held the producer back")
        let ended = try XCTUnwrap(progress.waitForEnd(seconds: 5), "the stalled answer was cut and its producer ended")
        XCTAssertLessThan(progress.written, 32 * 1024 * 1024)
        XCTAssertNotNil(ended)
        Thread.sleep(forTimeInterval: 0.2)
        XCTAssertTrue(
            handler.refusalReasons.contains { $0.contains("read nothing of the streamed answer") },
            "\(handler.refusalReasons)")
    }

    func testAClientThatGoesAwayMidStreamEndsTheProducerThoughItWaitsForMoreToSend() throws {
        let progress = Progress()
        let handler = Streamer { stream in
            stream.write("a line\n")
            // Waiting for a log to grow: the producer learns the client left without writing again.
            while stream.pause(seconds: 0.2) {}
            progress.end()
        }
        let port = try start(handler)
        let client = try SocketClient(port: port)
        client.send(Self.get)
        XCTAssertTrue(client.read(until: "a line", seconds: 2).contains("a line"))
        let left = Date()
        client.closeNow()
        let ended = try XCTUnwrap(progress.waitForEnd(seconds: 5), "the producer ended")
        XCTAssertLessThan(ended.timeIntervalSince(left), 2, "soon after the client left")
        Thread.sleep(forTimeInterval: 0.2)
        XCTAssertTrue(
            handler.refusalReasons.contains { $0.contains("went away during the streamed answer") },
            "\(handler.refusalReasons)")
    }

    func testStoppingTheServerEndsEveryStream() throws {
        let progress = Progress()
        let port = try start(
            Streamer { stream in
                while stream.write("tick\n") { _ = stream.pause(seconds: 0.05) }
                progress.end()
            })
        let client = try SocketClient(port: port)
        client.send(Self.get)
        XCTAssertTrue(client.read(until: "tick", seconds: 2).contains("tick"))
        server?.stop()
        XCTAssertNotNil(progress.endedAt, "stop() returned after the producer ended")
    }
}
