import Foundation
import PipeHTTP
import PipeTestSupport
import XCTest

#if canImport(Glibc)
    import Glibc
#endif

/// The libmicrohttpd server over real sockets with one handler for every path: whole bodies, limits, the
/// total-time watchdog, the answer queue, and libcurl posting to it.
final class HTTPServerTests: XCTestCase {
    /// Answers with the body's length; records what it was given.
    final class Recorder: HTTPHandler, @unchecked Sendable {
        private let lock = NSLock()
        private var kept: [HTTPRequest] = []
        private var refused: [(status: Int?, reason: String)] = []
        var delay: Double = 0
        var answer: (HTTPRequest) -> HTTPResponse = { .text(200, "got \($0.body.count) bytes") }

        func screen(_ head: HTTPRequestHead) -> HTTPResponse? {
            head.path == "/refuse" ? .text(404, "not here") : nil
        }

        func respond(to request: HTTPRequest) -> HTTPResponse {
            lock.lock()
            kept.append(request)
            lock.unlock()
            if delay > 0 { Thread.sleep(forTimeInterval: delay) }
            return answer(request)
        }

        func refused(_ head: HTTPRequestHead?, remoteAddress: String, status: Int?, reason: String) {
            lock.lock()
            refused.append((status, reason))
            lock.unlock()
        }

        var requests: [HTTPRequest] {
            lock.lock()
            defer { lock.unlock() }
            return kept
        }

        var requestCount: Int { requests.count }

        var refusals: [(status: Int?, reason: String)] {
            lock.lock()
            defer { lock.unlock() }
            return refused
        }

        var refusalReasons: [String] { refusals.map(\.reason) }
    }

    private var server: HTTPServer?

    override func tearDown() {
        server?.stop()
        super.tearDown()
    }

    private func start(_ recorder: Recorder, limits: HTTPServerLimits = HTTPServerLimits()) throws -> HTTPServer {
        let server = try HTTPServer(address: "127.0.0.1", port: 0, limits: limits, delegate: recorder)
        self.server = server
        XCTAssertGreaterThan(server.port, 0)
        return server
    }

    func testABodySentInPiecesArrivesWholeAndByteForByte() throws {
        let recorder = Recorder()
        let server = try start(recorder)
        let body = (0..<3).map { "part\($0)=" + String(repeating: "x", count: 1500) + "&" }.joined() + "ü=1"
        let client = try SocketClient(port: server.port)
        client.send(
            "POST /in HTTP/1.1\r\nHost: x\r\nConnection: close\r\nContent-Type: application/x-www-form-urlencoded\r\n"
                + "X-Custom: a\r\nContent-Length: \(Array(body.utf8).count)\r\n\r\n")
        var rest = Substring(body)
        while !rest.isEmpty {
            Thread.sleep(forTimeInterval: 0.05)
            client.send(String(rest.prefix(700)))
            rest = rest.dropFirst(700)
        }
        let answer = client.readAll(seconds: 3)
        XCTAssertTrue(answer.hasPrefix("HTTP/1.1 200"), answer)
        XCTAssertEqual(recorder.requests.first?.body, Array(body.utf8))
        XCTAssertEqual(recorder.requests.first?.head.header("x-custom"), "a")
        XCTAssertEqual(recorder.requests.first?.head.mediaType, "application/x-www-form-urlencoded")
        XCTAssertEqual(recorder.requests.first?.head.remoteAddress, "127.0.0.1")
    }

    func testAHeaderSentTwiceIsMarkedSoItIsNeverReadOneWay() throws {
        let recorder = Recorder()
        let server = try start(recorder)
        let answer = try SocketClient.exchange(
            "POST /in HTTP/1.1\r\nHost: x\r\nConnection: close\r\nX-Sig: v0=aa\r\nx-sig: v0=AA\r\nX-Once: 1\r\n"
                + "Content-Length: 0\r\n\r\n", port: server.port)
        XCTAssertTrue(answer.hasPrefix("HTTP/1.1 200"), answer)
        XCTAssertEqual(recorder.requests.first?.head.repeatedHeaders, ["x-sig"])
        XCTAssertEqual(recorder.requests.first?.head.header("x-once"), "1")
    }

    func testAUnixSocketReplacesAStaleSocketButNeverOneInUseOrAnotherFile() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("pipe-sock-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let file = folder.appendingPathComponent("not-a-socket").path
        XCTAssertTrue(FileManager.default.createFile(atPath: file, contents: Data("keep".utf8)))
        XCTAssertThrowsError(
            try HTTPServer(listener: .unixSocket(path: file), limits: HTTPServerLimits(), delegate: Recorder())
        ) { error in
            XCTAssertTrue("\(error)".contains("exists and is not a socket"), "\(error)")
        }
        XCTAssertEqual(FileManager.default.contents(atPath: file), Data("keep".utf8))
        XCTAssertThrowsError(
            try HTTPServer(
                listener: .unixSocket(path: "/tmp/" + String(repeating: "s", count: 120)), limits: HTTPServerLimits(),
                delegate: Recorder()))
        let socket = folder.appendingPathComponent("s.sock").path
        let recorder = Recorder()
        // A socket file nothing listens on, as a server killed with SIGKILL leaves it.
        let stale = Glibc.socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        withUnsafeMutableBytes(of: &address.sun_path) { $0.copyBytes(from: Array(socket.utf8) + [0]) }
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(stale, $0, socklen_t(MemoryLayout<sockaddr_un>.size))
            }
        }
        XCTAssertEqual(bound, 0)
        close(stale)
        server = try HTTPServer(listener: .unixSocket(path: socket), limits: HTTPServerLimits(), delegate: recorder)
        XCTAssertThrowsError(
            try HTTPServer(listener: .unixSocket(path: socket), limits: HTTPServerLimits(), delegate: Recorder())
        ) { error in
            XCTAssertTrue("\(error)".contains("another process listens on"), "\(error)")
        }
        let client = try SocketClient(unixSocket: socket)
        client.send("POST /in HTTP/1.1\r\nHost: x\r\nConnection: close\r\nContent-Length: 2\r\n\r\nab")
        XCTAssertTrue(client.readAll(seconds: 3).hasPrefix("HTTP/1.1 200"))
        XCTAssertEqual(recorder.requests.first?.head.viaUnixSocket, true)
        XCTAssertEqual(recorder.requests.first?.head.remoteAddress, "unix")
    }

    func testASlowClientIsCutOffAtTheTotalLimitThoughItNeverGoesIdle() throws {
        let recorder = Recorder()
        let server = try start(recorder, limits: HTTPServerLimits(requestSeconds: 1))
        let client = try SocketClient(port: server.port)
        client.send("POST /in HTTP/1.1\r\nHost: x\r\nConnection: close\r\nContent-Length: 100\r\n\r\n")
        let started = Date()
        // One byte every 0.2 s: never idle for libmicrohttpd's timeout, far too slow in total.
        var sent = 0
        while sent < 100, client.send("a") {
            sent += 1
            Thread.sleep(forTimeInterval: 0.2)
        }
        let elapsed = Date().timeIntervalSince(started)
        XCTAssertLessThan(sent, 100, "the connection was cut before the body was complete")
        XCTAssertLessThan(elapsed, 2.5, "cut near the 1 s limit (took \(elapsed) s)")
        XCTAssertEqual(recorder.requestCount, 0, "nothing reached the workers")
        Thread.sleep(forTimeInterval: 0.2)
        XCTAssertTrue(recorder.refusalReasons.contains { $0.contains("cut off") }, "\(recorder.refusalReasons)")
    }

    func testBodiesOverTheLimitAreRefusedWithAndWithoutALength() throws {
        let recorder = Recorder()
        let server = try start(recorder, limits: HTTPServerLimits(maxBodyBytes: 1000))
        let declared = try SocketClient(port: server.port)
        declared.send("POST /in HTTP/1.1\r\nHost: x\r\nConnection: close\r\nContent-Length: 5000\r\n\r\n")
        // Answered from the headers alone, before a byte of the body is sent.
        XCTAssertTrue(declared.readAll(seconds: 2).hasPrefix("HTTP/1.1 413"))

        let chunked = try SocketClient(port: server.port)
        chunked.send("POST /in HTTP/1.1\r\nHost: x\r\nConnection: close\r\nTransfer-Encoding: chunked\r\n\r\n")
        for _ in 0..<3 { chunked.send("1f4\r\n" + String(repeating: "b", count: 500) + "\r\n") }
        chunked.send("0\r\n\r\n")
        XCTAssertTrue(chunked.readAll(seconds: 2).hasPrefix("HTTP/1.1 413"))
        XCTAssertEqual(recorder.requestCount, 0)
    }

    func testScreenedRequestsAndHeadsOverTheLimitAreRefused() throws {
        let recorder = Recorder()
        let server = try start(recorder, limits: HTTPServerLimits(maxHeaderBytes: 2048))
        let refused = try SocketClient(port: server.port)
        refused.send("POST /refuse HTTP/1.1\r\nHost: x\r\nConnection: close\r\nContent-Length: 3\r\n\r\nabc")
        XCTAssertTrue(refused.readAll(seconds: 2).hasPrefix("HTTP/1.1 404"))
        let big = try SocketClient(port: server.port)
        big.send(
            "POST /in HTTP/1.1\r\nHost: x\r\nConnection: close\r\nX-Big: \(String(repeating: "h", count: 20_000))\r\n\r\n"
        )
        let answer = big.readAll(seconds: 2)
        XCTAssertTrue(answer.hasPrefix("HTTP/1.1 431"), answer)
        XCTAssertEqual(recorder.requestCount, 0)
    }

    func testAnAnswerThatComesTooLateIs503() throws {
        let recorder = Recorder()
        recorder.delay = 1
        let server = try start(recorder, limits: HTTPServerLimits(answerSeconds: 0.3))
        let answer = try HTTPClient().send(HTTPClientRequest("POST", "http://127.0.0.1:\(server.port)/in"))
        XCTAssertEqual(answer.status, 503)
        XCTAssertEqual(answer.header("retry-after"), "1", "a 503 says when to try again")
    }

    func testLibcurlPostsJSONToTheServer() throws {
        let recorder = Recorder()
        recorder.answer = { _ in .text(201, "made") }
        let server = try start(recorder)
        let body = Array(#"{"text":"héllo"}"#.utf8)
        let url = "http://127.0.0.1:\(server.port)/hook"
        let post = HTTPClientRequest("POST", url, headers: [("Content-Type", "application/json")], body: body)
        XCTAssertEqual(try HTTPClient().send(post).status, 201)
        XCTAssertEqual(recorder.requests.first?.body, body)
        XCTAssertEqual(recorder.requests.first?.head.mediaType, "application/json")
        XCTAssertEqual(recorder.requests.first?.head.path, "/hook")
        server.stop()
        XCTAssertThrowsError(try HTTPClient().send(post), "a closed port is a failure") { error in
            XCTAssertEqual((error as? HTTPClientError)?.kind, .connect, "\(error)")
        }
        XCTAssertThrowsError(try HTTPClient().send(HTTPClientRequest("GET", "file:///etc/passwd")), "only http(s)")
    }
}
