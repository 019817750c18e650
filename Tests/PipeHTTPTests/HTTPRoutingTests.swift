import Foundation
import PipeHTTP
import PipeTestSupport
import XCTest

/// Endpoints mounted by path on one server over real sockets: which endpoint a path reaches, refusals decided from
/// the head before any body byte, and each endpoint's own limits.
final class HTTPRoutingTests: XCTestCase {
    typealias Recorder = HTTPServerTests.Recorder
    private var server: HTTPServer?

    override func tearDown() {
        server?.stop()
        super.tearDown()
    }

    private func start(_ endpoints: [HTTPEndpoint], listener: HTTPListener = .tcp(address: "127.0.0.1", port: 0))
        throws -> HTTPServer
    {
        let server = try HTTPServer(listener: listener, limits: HTTPServerLimits(), endpoints: endpoints)
        self.server = server
        return server
    }

    private func named(_ name: String) -> Recorder {
        let recorder = Recorder()
        recorder.answer = { .text(200, "\(name) \($0.head.path)") }
        return recorder
    }

    func testEachPathReachesItsEndpointExactPathsFirstThenTheLongestPrefix() throws {
        let hooks = named("hooks")
        let runs = named("runs")
        let archive = named("archive")
        let server = try start([
            HTTPEndpoint("hooks", path: .exact("/hooks/github"), methods: ["POST"], handler: hooks),
            HTTPEndpoint("runs", path: .prefix("/runs/"), methods: ["GET"], handler: runs),
            HTTPEndpoint("archive", path: .prefix("/runs/archive/"), methods: ["GET"], handler: archive),
        ])
        let base = "http://127.0.0.1:\(server.port)"
        let client = HTTPClient()
        XCTAssertEqual(
            try client.send(HTTPClientRequest("POST", base + "/hooks/github")).bodyText, "hooks /hooks/github\n")
        XCTAssertEqual(
            try client.send(HTTPClientRequest("GET", base + "/runs/20261202-1")).bodyText, "runs /runs/20261202-1\n")
        XCTAssertEqual(
            try client.send(HTTPClientRequest("GET", base + "/runs/archive/7?follow=1")).bodyText,
            "archive /runs/archive/7\n")
        XCTAssertEqual(archive.requests.first?.head.query, ["follow": "1"])
        for path in ["/hooks/github/x", "/hooks", "/", "/runs"] {
            XCTAssertEqual(try client.send(HTTPClientRequest("GET", base + path)).status, 404, path)
        }
        // libcurl would squash the dots itself; a raw client sends them.
        let dots = try SocketClient.exchange(
            "GET /runs/../hooks/github HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n", port: server.port)
        XCTAssertTrue(dots.hasPrefix("HTTP/1.1 400"), dots)
        XCTAssertEqual(hooks.requestCount + runs.requestCount + archive.requestCount, 3)
    }

    func testEndpointsAreServedOverAUnixSocketToo() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("pipe-route-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let socket = folder.appendingPathComponent("http.sock").path
        let chat = named("chat")
        _ = try start(
            [HTTPEndpoint("chat", path: .exact("/chat"), methods: ["POST"], mediaTypes: ["text/plain"], handler: chat)],
            listener: .unixSocket(path: socket))
        let answer = try SocketClient.exchange(
            "POST /chat HTTP/1.1\r\nHost: x\r\nConnection: close\r\nContent-Type: text/plain\r\nContent-Length: 2\r\n"
                + "\r\nhi", unixSocket: socket)
        XCTAssertTrue(answer.hasPrefix("HTTP/1.1 200"), answer)
        let wrong = try SocketClient.exchange(
            "GET /chat HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n", unixSocket: socket)
        XCTAssertTrue(wrong.hasPrefix("HTTP/1.1 405"), wrong)
        XCTAssertEqual(chat.requests.first?.head.viaUnixSocket, true)
    }

    /// Each refusal arrives while the client has sent its head and holds its body back: no body byte was read.
    func testRefusalsAreDecidedFromTheHeadBeforeAnyBodyByte() throws {
        let chat = named("chat")
        let server = try start([
            HTTPEndpoint(
                "chat", path: .exact("/chat"), methods: ["POST"], mediaTypes: ["application/x-www-form-urlencoded"],
                limits: HTTPEndpointLimits(maxBodyBytes: 8 * 1024), handler: chat)
        ])
        let cases: [(head: String, status: String)] = [
            ("POST /elsewhere HTTP/1.1\r\nContent-Type: application/x-www-form-urlencoded", "404"),
            ("PUT /chat HTTP/1.1\r\nContent-Type: application/x-www-form-urlencoded", "405"),
            ("POST /chat HTTP/1.1\r\nContent-Type: application/json", "415"),
            ("POST /chat HTTP/1.1", "415"),
            ("POST /chat HTTP/1.1\r\nContent-Type: application/x-www-form-urlencoded; charset=utf-8", "413"),
        ]
        for (head, status) in cases {
            let client = try SocketClient(port: server.port)
            let length = status == "413" ? 9000 : 100
            client.send(head + "\r\nHost: x\r\nConnection: close\r\nContent-Length: \(length)\r\n\r\n")
            let answer = client.readAll(seconds: 2)
            XCTAssertTrue(answer.hasPrefix("HTTP/1.1 \(status)"), "\(head): \(answer)")
            if status == "405" { XCTAssertTrue(answer.contains("Allow: POST\r\n"), answer) }
        }
        XCTAssertEqual(chat.requestCount, 0, "no request reached the endpoint")
        let statuses = chat.refusals.compactMap(\.status)
        XCTAssertEqual(statuses, [405, 415, 415, 413], "the endpoint hears of its own refusals: \(chat.refusals)")
    }

    func testAMountConflictIsAnErrorBeforeAnythingListens() {
        let one = Recorder()
        func fails(_ endpoints: [HTTPEndpoint], saying text: String) {
            XCTAssertThrowsError(
                try HTTPServer(
                    listener: .tcp(address: "127.0.0.1", port: 0), limits: HTTPServerLimits(), endpoints: endpoints)
            ) { error in
                XCTAssertTrue("\(error)".contains(text), "\(error)")
            }
        }
        fails(
            [
                HTTPEndpoint("chat-ops", path: .exact("/hooks/github"), methods: ["POST"], handler: one),
                HTTPEndpoint("GitHub webhooks", path: .exact("/hooks/github"), methods: ["POST"], handler: one),
            ], saying: "two endpoints are mounted on /hooks/github: chat-ops and GitHub webhooks")
        fails(
            [
                HTTPEndpoint("pages", path: .prefix("/runs/"), methods: ["GET"], handler: one),
                HTTPEndpoint("run", path: .exact("/runs/"), methods: ["GET"], handler: one),
            ], saying: "two endpoints are mounted on /runs/")
        fails(
            [HTTPEndpoint("pages", path: .prefix("/runs"), methods: ["GET"], handler: one)],
            saying: "must end with /")
        fails([HTTPEndpoint("bad", path: .exact("runs"), methods: ["GET"], handler: one)], saying: "must start with /")
    }

    func testA25MegabyteBodyIsAcceptedByOneEndpointAndRefusedByAnotherOnTheSameServer() throws {
        let hooks = Recorder()
        let chat = Recorder()
        let server = try start([
            HTTPEndpoint(
                "webhooks", path: .exact("/hooks/github"), methods: ["POST"], mediaTypes: ["application/json"],
                limits: HTTPEndpointLimits(maxBodyBytes: 25 * 1024 * 1024, requestSeconds: 30), handler: hooks),
            HTTPEndpoint(
                "chat-ops", path: .exact("/chat"), methods: ["POST"], mediaTypes: ["application/json"],
                limits: HTTPEndpointLimits(maxBodyBytes: 8 * 1024), handler: chat),
        ])
        var body = [UInt8](repeating: UInt8(ascii: "x"), count: 25 * 1024 * 1024)
        for index in stride(from: 0, to: body.count, by: 4093) { body[index] = UInt8(truncatingIfNeeded: index) }
        let json = [("Content-Type", "application/json")]
        let base = "http://127.0.0.1:\(server.port)"
        let accepted = try HTTPClient().send(
            HTTPClientRequest("POST", base + "/hooks/github", headers: json, body: body))
        XCTAssertEqual(accepted.status, 200)
        XCTAssertEqual(accepted.bodyText, "got \(body.count) bytes\n")
        XCTAssertEqual(hooks.requests.first?.body == body, true, "byte for byte")
        let refused = try HTTPClient().send(HTTPClientRequest("POST", base + "/chat", headers: json, body: body))
        XCTAssertEqual(refused.status, 413)
        XCTAssertEqual(chat.requestCount, 0)
    }

    func testEachEndpointHasItsOwnTotalTime() throws {
        let quick = Recorder()
        let patient = Recorder()
        let server = try start([
            HTTPEndpoint(
                "quick", path: .exact("/quick"), methods: ["POST"], limits: HTTPEndpointLimits(requestSeconds: 1),
                handler: quick),
            HTTPEndpoint(
                "patient", path: .exact("/patient"), methods: ["POST"], limits: HTTPEndpointLimits(requestSeconds: 5),
                handler: patient),
        ])
        func trickle(_ path: String) throws -> (sent: Int, answer: String) {
            let client = try SocketClient(port: server.port)
            client.send("POST \(path) HTTP/1.1\r\nHost: x\r\nConnection: close\r\nContent-Length: 10\r\n\r\n")
            var sent = 0
            while sent < 10, client.send("a") {
                sent += 1
                Thread.sleep(forTimeInterval: 0.2)
            }
            return (sent, client.readAll(seconds: 3))
        }
        let cut = try trickle("/quick")
        XCTAssertLessThan(cut.sent, 10, "cut near its 1 s")
        XCTAssertEqual(quick.requestCount, 0)
        XCTAssertTrue(quick.refusalReasons.contains { $0.contains("more than 1.0 s") }, "\(quick.refusalReasons)")
        let whole = try trickle("/patient")
        XCTAssertTrue(whole.answer.hasPrefix("HTTP/1.1 200"), "2 s of trickling is within 5 s: \(whole.answer)")
    }

    func testABodyReachesItsReceiverPieceByPieceAsItArrives() throws {
        let handler = PieceCounter()
        let server = try start([
            HTTPEndpoint(
                "upload", path: .exact("/upload"), methods: ["POST"], limits: HTTPEndpointLimits(maxBodyBytes: 4000),
                handler: handler)
        ])
        let client = try SocketClient(port: server.port)
        client.send("POST /upload HTTP/1.1\r\nHost: x\r\nConnection: close\r\nContent-Length: 3000\r\n\r\n")
        client.send(String(repeating: "a", count: 1000))
        let deadline = Date().addingTimeInterval(3)
        while handler.received < 1000, Date() < deadline { Thread.sleep(forTimeInterval: 0.02) }
        XCTAssertEqual(handler.received, 1000, "the first piece arrived before the rest was sent")
        client.send(String(repeating: "b", count: 2000))
        let answer = client.readAll(seconds: 3)
        XCTAssertTrue(answer.hasSuffix("3000 bytes\n"), answer)

        // A receiver that refuses part way: the rest is read and dropped, then its answer is sent.
        let refused = try SocketClient(port: server.port)
        refused.send("POST /upload HTTP/1.1\r\nHost: x\r\nConnection: close\r\nContent-Length: 3000\r\n\r\n")
        refused.send("stop" + String(repeating: "c", count: 2996))
        XCTAssertTrue(refused.readAll(seconds: 3).hasPrefix("HTTP/1.1 422"))
    }

    /// Counts the body as it arrives, and refuses one that begins with `stop`.
    final class PieceCounter: HTTPHandler, HTTPBodyReceiver, @unchecked Sendable {
        private let lock = NSLock()
        private var count = 0

        var received: Int {
            lock.lock()
            defer { lock.unlock() }
            return count
        }

        func bodyReceiver(for head: HTTPRequestHead) -> HTTPBodyReceiver? {
            lock.lock()
            count = 0
            lock.unlock()
            return self
        }

        func receive(_ piece: UnsafeRawBufferPointer) -> HTTPResponse? {
            lock.lock()
            defer { lock.unlock() }
            if count == 0, piece.starts(with: Array("stop".utf8)) { return .text(422, "refused part way") }
            count += piece.count
            return nil
        }

        func finish(_ head: HTTPRequestHead) -> HTTPResponse { .text(200, "\(received) bytes") }
        func respond(to request: HTTPRequest) -> HTTPResponse { .text(500, "the body went to the receiver") }
        func refused(_ head: HTTPRequestHead?, remoteAddress: String, status: Int?, reason: String) {}
    }
}
