import Foundation
import PipeHTTP
import PipeTestSupport
import XCTest

#if canImport(Glibc)
    import Glibc
#endif

/// libcurl against this module's own server over real HTTP: methods, headers and bodies both ways, bounded
/// answers, times, no redirects, only HTTP(S), and no secret in what it says.
final class HTTPClientTests: XCTestCase {
    private var server: HTTPServer?
    private let recorder = HTTPServerTests.Recorder()

    override func tearDown() {
        server?.stop()
        super.tearDown()
    }

    private func start(_ answer: @escaping (HTTPRequest) -> HTTPResponse) throws -> String {
        recorder.answer = answer
        let server = try HTTPServer(
            address: "127.0.0.1", port: 0, limits: HTTPServerLimits(answerSeconds: 5), delegate: recorder)
        self.server = server
        return "http://127.0.0.1:\(server.port)"
    }

    func testAnyMethodWithHeadersAndABodyAndTheWholeAnswerBack() throws {
        let base = try start { request in
            var response = HTTPResponse.text(
                201, "\(request.head.method) \(request.head.header("x-thing") ?? "-") \(request.body.count)")
            try? response.headers.set("X-Echo", request.head.header("user-agent") ?? "")
            return response
        }
        let put = try HTTPClient().send(
            HTTPClientRequest("PUT", base + "/a", headers: [("X-Thing", "ok")], body: Array("twelve bytes".utf8)))
        XCTAssertEqual(put.status, 201)
        XCTAssertEqual(put.bodyText, "PUT ok 12\n")
        XCTAssertFalse(put.bodyTruncated)
        XCTAssertTrue(put.header("x-echo")?.hasPrefix("Pipe") == true, "the User-Agent names Pipe: \(put.headers)")
        XCTAssertEqual(try HTTPClient().send(HTTPClientRequest("DELETE", base + "/a")).bodyText, "DELETE - 0\n")
        XCTAssertEqual(
            try HTTPClient().send(HTTPClientRequest("PATCH", base + "/a", body: [1, 2])).bodyText, "PATCH - 2\n")
        let head = try HTTPClient().send(HTTPClientRequest("HEAD", base + "/a"))
        XCTAssertEqual(head.status, 201)
        XCTAssertEqual(head.body, [])
    }

    func testAnAnswerLargerThanTheLimitIsCutAndSaysSo() throws {
        let base = try start { request in
            guard request.head.path == "/endless" else {
                return HTTPResponse(status: 200, body: [UInt8](repeating: 7, count: 1024 * 1024))
            }
            return .streamed(200, contentType: "text/plain") { stream in
                while stream.write([UInt8](repeating: 8, count: 16 * 1024)) {}
            }
        }
        let cut = try HTTPClient().send(HTTPClientRequest("GET", base + "/big", maxResponseBytes: 1000))
        XCTAssertEqual(cut.status, 200)
        XCTAssertEqual(cut.body.count, 1000)
        XCTAssertTrue(cut.bodyTruncated)
        // An answer that never ends is cut there too, at once: never held whole.
        let began = Date()
        let endless = try HTTPClient().send(
            HTTPClientRequest("GET", base + "/endless", maxResponseBytes: 100_000, totalSeconds: 10))
        XCTAssertEqual(endless.body.count, 100_000)
        XCTAssertTrue(endless.bodyTruncated)
        XCTAssertLessThan(Date().timeIntervalSince(began), 3)
        let whole = try HTTPClient().send(HTTPClientRequest("GET", base + "/big"))
        XCTAssertEqual(whole.body.count, 1024 * 1024)
        XCTAssertFalse(whole.bodyTruncated)
    }

    func testTheTotalTimeBoundsASlowAnswer() throws {
        let base = try start { _ in
            Thread.sleep(forTimeInterval: 2)
            return .text(200, "late")
        }
        let began = Date()
        XCTAssertThrowsError(try HTTPClient().send(HTTPClientRequest("GET", base + "/slow", totalSeconds: 0.5))) {
            XCTAssertEqual(($0 as? HTTPClientError)?.kind, .timeout, "\($0)")
        }
        XCTAssertLessThan(Date().timeIntervalSince(began), 1.5)
    }

    func testTheConnectTimeBoundsAServerThatNeverAccepts() throws {
        // A listener whose accept queue is full: the kernel drops further connection attempts unanswered.
        let listener = try SilentListener(backlog: 0)
        var address = listener.address
        let length = socklen_t(MemoryLayout<sockaddr_in>.size)
        var fillers: [Int32] = []
        defer { for filler in fillers { close(filler) } }
        for _ in 0..<4 {
            let filler = socket(AF_INET, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_NONBLOCK.rawValue), 0)
            _ = withUnsafePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(filler, $0, length) }
            }
            fillers.append(filler)
        }
        Thread.sleep(forTimeInterval: 0.1)
        let url = "http://127.0.0.1:\(listener.port)/"
        let began = Date()
        XCTAssertThrowsError(
            try HTTPClient().send(HTTPClientRequest("GET", url, connectSeconds: 0.5, totalSeconds: 20))
        ) {
            XCTAssertEqual(($0 as? HTTPClientError)?.kind, .timeout, "\($0)")
        }
        XCTAssertLessThan(Date().timeIntervalSince(began), 2, "the connect time, not the total")
        withExtendedLifetime(listener) {}
    }

    func testARedirectIsTheAnswerAndIsNotFollowed() throws {
        let base = try start { request in
            guard request.head.path == "/moved" else { return .text(200, "followed") }
            var response = HTTPResponse.text(302, "moved")
            try? response.headers.set("Location", "/elsewhere")
            return response
        }
        let answer = try HTTPClient().send(HTTPClientRequest("POST", base + "/moved", body: [1]))
        XCTAssertEqual(answer.status, 302)
        XCTAssertEqual(answer.header("location"), "/elsewhere")
        XCTAssertEqual(recorder.requests.map(\.head.path), ["/moved"])
    }

    func testOnlyHTTPAndHTTPSAndTheCertificateIsAlwaysVerified() throws {
        let base = try start { _ in .text(200, "plain") }
        func kind(_ request: HTTPClientRequest, client: HTTPClient = HTTPClient()) -> HTTPClientError.Kind? {
            do {
                _ = try client.send(request)
                return nil
            } catch {
                return error.kind
            }
        }
        XCTAssertEqual(kind(HTTPClientRequest("GET", "file:///etc/passwd")), .invalidRequest)
        XCTAssertEqual(kind(HTTPClientRequest("GET", "ftp://127.0.0.1/")), .invalidRequest)
        XCTAssertEqual(kind(HTTPClientRequest("GET", base + "/a b")), .invalidRequest)
        XCTAssertEqual(kind(HTTPClientRequest("GET", base.replacingOccurrences(of: "http:", with: "https:"))), .tls)
        XCTAssertEqual(
            kind(HTTPClientRequest("GET", base), client: HTTPClient(caFile: "/nonexistent/ca.pem")), .invalidRequest)
        XCTAssertEqual(recorder.requestCount, 0)
    }

    func testNoTokenReachesADescriptionOrAnError() throws {
        let token = "ghp_s3cr3tT0ken"
        let request = HTTPClientRequest(
            "POST", "http://127.0.0.1:1/repos/o/r/statuses/abc?access_token=\(token)",
            headers: [("Authorization", "Bearer \(token)"), ("Accept", "application/json")])
        XCTAssertEqual(
            request.description,
            "POST http://127.0.0.1:1/repos/o/r/statuses/abc?… (headers: Authorization, Accept)")
        var messages: [String] = []
        do { _ = try HTTPClient().send(request) } catch { messages.append(error.message) }
        let injected = HTTPClientRequest(
            "GET", "http://127.0.0.1:1/", headers: [("Authorization", "\(token)\r\nX-Evil: 1")])
        do { _ = try HTTPClient().send(injected) } catch {
            XCTAssertEqual(error.kind, .invalidRequest)
            messages.append(error.message)
        }
        let credentials = HTTPClientRequest("GET", "https://x-access-token:\(token)@github.example/")
        do { _ = try HTTPClient().send(credentials) } catch {
            XCTAssertEqual(error.kind, .invalidRequest)
            messages.append(error.message)
        }
        XCTAssertEqual(messages.count, 3, "\(messages)")
        for message in messages { XCTAssertFalse(message.contains(token), message) }
    }
}
