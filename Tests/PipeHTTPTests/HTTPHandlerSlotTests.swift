import Foundation
import PipeHTTP
import PipeTestSupport
import XCTest

/// A handler replaced behind a listening server (a reloaded config): over real sockets, the next request reaches
/// the new handler while the listener keeps listening.
final class HTTPHandlerSlotTests: XCTestCase {
    typealias Recorder = HTTPServerTests.Recorder

    func testTheNextRequestReachesTheReplacementWhileTheServerKeepsListening() throws {
        let old = Recorder()
        old.answer = { _ in .text(200, "old") }
        let new = Recorder()
        new.answer = { _ in .text(200, "new") }
        let slot = HTTPHandlerSlot(old)
        let server = try HTTPServer(
            listener: .tcp(address: "127.0.0.1", port: 0), limits: HTTPServerLimits(),
            endpoints: [HTTPEndpoint("page", path: .prefix("/"), methods: ["GET"], handler: slot)])
        defer { server.stop() }
        let url = "http://127.0.0.1:\(server.port)/runs"
        let client = HTTPClient()
        XCTAssertEqual(try client.send(HTTPClientRequest("GET", url)).bodyText, "old\n")
        slot.replace(with: new)
        XCTAssertEqual(try client.send(HTTPClientRequest("GET", url)).bodyText, "new\n")
        XCTAssertTrue(slot.handler === new)
        XCTAssertEqual(old.requestCount, 1, "the old handler answered only before the swap")
        XCTAssertEqual(new.requestCount, 1)
    }
}
