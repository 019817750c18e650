import Foundation
import PipeHTTP
import PipeTestSupport
import XCTest

/// Response headers: set and read back over real HTTP, and never a way to split a response.
final class HTTPHeadersTests: XCTestCase {
    private var server: HTTPServer?

    override func tearDown() {
        server?.stop()
        super.tearDown()
    }

    func testNoValueFromTheCorpusSplitsAResponse() {
        for text in InjectionCorpus.strings {
            var headers = HTTPHeaders()
            let controls = text.utf8.contains { ($0 < 0x20 && $0 != 0x09) || $0 == 0x7F }
            do {
                try headers.add("Location", text)
                XCTAssertFalse(controls, "a value with a control character was taken: \(text.debugDescription)")
                XCTAssertEqual(headers.value("location"), text)
            } catch {
                XCTAssertTrue(controls, "refused: \(text.debugDescription): \(error)")
                XCTAssertTrue(error.message.contains("header Location"), error.message)
                XCTAssertFalse(error.message.contains("id>/tmp"), "the value is not repeated: \(error.message)")
            }
            if text.contains(where: { $0 == " " || $0 == ":" || $0 == "\n" }) {
                XCTAssertThrowsError(try headers.add("X-\(text)", "v"), "a name is a token: \(text.debugDescription)")
            }
        }
        for name in ["Content-Length", "transfer-encoding", "Connection", "Content-Type", "X Space", "X:Colon", ""] {
            XCTAssertThrowsError(try HTTPHeaders([(name, "1")]), name)
        }
        XCTAssertNoThrow(try HTTPHeaders([("Retry-After", "30"), ("X-Tab", "a\tb"), ("X-Text", "naïve")]))
    }

    func testHeadersArriveAsSetAndEveryAnswerIsNotCachedUnlessItSaysSo() throws {
        let recorder = HTTPServerTests.Recorder()
        recorder.answer = { request in
            guard request.head.path == "/page" else { return .text(200, "plain") }
            var response = HTTPResponse.text(303, "see the run")
            try? response.headers.set("Location", "/runs/20261202-1")
            try? response.headers.set("Content-Security-Policy", "default-src 'none'")
            try? response.headers.set("Cache-Control", "max-age=60")
            try? response.headers.add("X-Two", "1")
            try? response.headers.add("X-Two", "2")
            return response
        }
        let server = try HTTPServer(address: "127.0.0.1", port: 0, limits: HTTPServerLimits(), delegate: recorder)
        self.server = server
        let page = try HTTPClient().send(HTTPClientRequest("GET", "http://127.0.0.1:\(server.port)/page"))
        XCTAssertEqual(page.status, 303)
        XCTAssertEqual(page.header("location"), "/runs/20261202-1")
        XCTAssertEqual(page.header("content-security-policy"), "default-src 'none'")
        XCTAssertEqual(page.header("cache-control"), "max-age=60")
        XCTAssertEqual(page.headers.filter { $0.name.lowercased() == "x-two" }.map(\.value), ["1", "2"])
        let plain = try HTTPClient().send(HTTPClientRequest("GET", "http://127.0.0.1:\(server.port)/plain"))
        XCTAssertEqual(plain.header("cache-control"), "no-store")
    }

    func testAnAnswerWithAnUnsafeContentTypeIsNotSent() throws {
        let recorder = HTTPServerTests.Recorder()
        recorder.answer = { _ in HTTPResponse(status: 200, contentType: "text/html\r\nX-Injected: 1", body: []) }
        let server = try HTTPServer(address: "127.0.0.1", port: 0, limits: HTTPServerLimits(), delegate: recorder)
        self.server = server
        let answer = try SocketClient.exchange(
            "GET / HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n", port: server.port)
        XCTAssertTrue(answer.hasPrefix("HTTP/1.1 500"), answer)
        XCTAssertFalse(answer.contains("X-Injected"), answer)
        XCTAssertTrue(recorder.refusalReasons.contains { $0.contains("Content-Type") }, "\(recorder.refusalReasons)")
    }
}
