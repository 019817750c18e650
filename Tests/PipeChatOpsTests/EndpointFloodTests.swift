import Foundation
import PipeChatOps
import PipeCore
import PipeTestSupport
import Synchronization
import XCTest

/// The endpoint under unauthenticated load, over real connections from several loopback addresses (each of
/// 127.0.0.0/8 is a peer of its own): the audit log stays small, connections per peer are limited, connections
/// that only hold their place give way, and the chat's own signed requests go through all the while.
final class EndpointFloodTests: XCTestCase {
    private let secret = "flood-signing-secret"
    private var endpoint: ChatOpsEndpoint?
    private var folder: URL!

    override func setUpWithError() throws {
        folder = FileManager.default.temporaryDirectory.appendingPathComponent("pipe-flood-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    }

    override func tearDown() {
        endpoint?.stop()
        try? FileManager.default.removeItem(at: folder)
        super.tearDown()
    }

    private var auditURL: URL { folder.appendingPathComponent("audit.jsonl") }

    private func start(
        limits: ChatOpsLimits = ChatOpsLimits(), unixSocket: String? = nil, proxy: ChatOpsProxy? = nil,
        proxySecret: String? = nil
    ) throws -> UInt16 {
        var config = ChatOpsConfig(
            port: 0, secret: .environment("unused"), limits: limits, responseURLs: [],
            authorization: ChatAuthorization(users: ["U1": .init(run: ["app-intents"])]), unixSocket: unixSocket,
            proxy: proxy)
        config.address = "127.0.0.1"
        let audit = try JSONLinesAuditLog(url: auditURL, maxBytes: limits.auditLogBytes)
        let endpoint = ChatOpsEndpoint(
            config: config, secret: secret, proxySecret: proxySecret, backend: EndpointHandlingTests.RecordingBackend(),
            audit: audit
        ) { _ in }
        self.endpoint = endpoint
        return try endpoint.start()
    }

    /// A request as Slack sends it, signed unless `signature` is given.
    private func slackRequest(
        text: String = "runs", path: String = "/chatops/slash", signature: String? = nil, extraHeaders: String = ""
    ) -> String {
        let stamp = String(Int(Date().timeIntervalSince1970))
        let body =
            "command=%2Fpipe&user_id=U1&user_name=alice&channel_id=C1&team_id=T1&text=\(text)"
            + "&trigger_id=\(UUID().uuidString)"
        let signed =
            signature ?? RequestVerifier.slackSignature(secret: secret, timestamp: stamp, body: Array(body.utf8))
        return "POST \(path) HTTP/1.1\r\nHost: x\r\nConnection: close\r\n"
            + "Content-Type: application/x-www-form-urlencoded\r\nX-Slack-Request-Timestamp: \(stamp)\r\n"
            + "X-Slack-Signature: \(signed)\r\n\(extraHeaders)Content-Length: \(body.utf8.count)\r\n\r\n\(body)"
    }

    private func entries() throws -> [ChatAuditEntry] { try JSONLinesAuditLog.entries(at: auditURL) }

    private func fileSize(_ url: URL) -> Int {
        ((try? FileManager.default.attributesOfItem(atPath: url.path))?[.size] as? NSNumber)?.intValue ?? 0
    }

    func testTwoThousandBadRequestsLeaveABoundedAuditAndTheChatStillGetsThrough() throws {
        let port = try start()
        let forged = "v0=" + String(repeating: "ab", count: 32)
        let longPath = "/" + String(repeating: "p", count: 4000)
        let hostile = (0..<40).map { "X-Field-\($0)-\(String(repeating: "h", count: 100)): v\r\n" }.joined()
        let requests = [
            slackRequest(signature: forged, extraHeaders: hostile), slackRequest(path: longPath),
            slackRequest(signature: "v0=" + String(repeating: "0", count: 64)),
        ]
        let answered = Mutex(0)
        let flood = DispatchGroup()
        for worker in 0..<4 {
            DispatchQueue.global().async(group: flood) {
                for index in 0..<500 {
                    let answer = try? SocketClient.exchange(
                        requests[(worker + index) % requests.count], port: port, from: "127.0.0.9")
                    if let answer, answer.hasPrefix("HTTP/1.1 401") || answer.hasPrefix("HTTP/1.1 404") {
                        answered.withLock { $0 += 1 }
                    }
                }
            }
        }
        // The chat's own requests, during the flood.
        var genuine: [(status: String, seconds: Double)] = []
        for _ in 0..<5 {
            Thread.sleep(forTimeInterval: 0.2)
            let began = Date()
            let answer = try SocketClient.exchange(slackRequest(), port: port, from: "127.0.0.1")
            genuine.append((String(answer.prefix(12)), Date().timeIntervalSince(began)))
        }
        XCTAssertEqual(flood.wait(timeout: .now() + 120), .success, "the flood ended")
        endpoint?.stop()
        endpoint = nil

        for answer in genuine {
            XCTAssertEqual(answer.status, "HTTP/1.1 200", "a signed request during the flood: \(genuine)")
            XCTAssertLessThan(answer.seconds, 3, "within Slack's 3 s: \(genuine)")
        }
        XCTAssertEqual(answered.withLock { $0 }, 2000, "every bad request was answered")
        let bytes = fileSize(auditURL)
        XCTAssertLessThan(bytes, 16 * 1024, "the audit log of 2,000 refused requests")
        let logged = try entries()
        let fromFlood = logged.filter { $0.remoteAddress == "127.0.0.9" }
        let singles = fromFlood.filter { $0.count == nil }
        XCTAssertEqual(singles.count, 5, "the first five refusals are written one by one")
        XCTAssertTrue(singles.allSatisfy { $0.reason.utf8.count <= 1024 }, "bounded: \(singles.map(\.reason))")
        let counted = try XCTUnwrap(fromFlood.first { $0.count != nil }, "\(fromFlood)")
        XCTAssertEqual(counted.count, 2000)
        XCTAssertTrue(
            counted.reason.hasPrefix("2000 requests refused from 127.0.0.9 in the last minute: bad signature ×"),
            counted.reason)
        XCTAssertTrue(counted.reason.contains("wrong path ×"), counted.reason)
        XCTAssertEqual(logged.filter { $0.verified && $0.decision == .accepted }.count, 5, "every genuine request")
    }

    func testAPeersCountIsWrittenWhenItsWindowEndsThoughNoRequestFollows() throws {
        let port = try start(limits: ChatOpsLimits(refusalsLoggedPerPeer: 1, refusalWindowSeconds: 0.5))
        for _ in 0..<10 {
            let answer = try SocketClient.exchange(slackRequest(signature: "v0=00"), port: port, from: "127.0.0.4")
            XCTAssertTrue(answer.hasPrefix("HTTP/1.1 401"), answer)
        }
        var counted: ChatAuditEntry?
        let deadline = Date().addingTimeInterval(5)
        while counted == nil, Date() < deadline {
            Thread.sleep(forTimeInterval: 0.1)
            counted = try entries().first { $0.count != nil }
        }
        XCTAssertEqual(counted?.count, 10, "written while the endpoint runs")
        XCTAssertEqual(
            counted?.reason,
            "10 requests refused from 127.0.0.4 in the last 0.5 s: bad signature ×9 (the first is logged on its own)")
    }

    func testConnectionsPerPeerAreLimitedAndOtherPeersStillGetThrough() throws {
        let port = try start(limits: ChatOpsLimits(connectionsPerPeer: 3, headSeconds: 10))
        let held = try (0..<3).map { _ in try SocketClient(port: port, from: "127.0.0.7") }
        Thread.sleep(forTimeInterval: 0.3)
        for client in held { XCTAssertFalse(client.closedByServer(within: 0.1), "within the limit") }
        let fourth = try SocketClient(port: port, from: "127.0.0.7")
        XCTAssertTrue(fourth.closedByServer(within: 2), "the fourth connection from one peer is closed")
        let answer = try SocketClient.exchange(slackRequest(), port: port, from: "127.0.0.1")
        XCTAssertTrue(answer.hasPrefix("HTTP/1.1 200"), answer)
        XCTAssertTrue(
            try SocketClient.exchange(slackRequest(), port: port, from: "127.0.0.8").hasPrefix("HTTP/1.1 200"),
            "another peer")
        held[0].send(slackRequest())
        XCTAssertTrue(held[0].readAll(seconds: 3).hasPrefix("HTTP/1.1 200"), "a held connection can still ask")
    }

    func testSixtyFourPeersHoldingConnectionsCannotKeepTheChatOut() throws {
        let port = try start(limits: ChatOpsLimits(connections: 64, headSeconds: 10))
        let held = try (1...64).map { try SocketClient(port: port, from: "127.0.1.\($0)") }
        Thread.sleep(forTimeInterval: 0.3)
        let began = Date()
        let answer = try SocketClient.exchange(slackRequest(), port: port, from: "127.0.0.1")
        XCTAssertTrue(answer.hasPrefix("HTTP/1.1 200"), "the chat's request while 64 connections are held: \(answer)")
        XCTAssertLessThan(Date().timeIntervalSince(began), 3)
        XCTAssertTrue(held[0].closedByServer(within: 1), "the oldest held connection made room")
        XCTAssertFalse(held[63].closedByServer(within: 0.1), "only as many as needed were cut")
    }

    func testAConnectionThatSendsNoHeadIsCutAtTheHeadTime() throws {
        let port = try start(limits: ChatOpsLimits(headSeconds: 0.5, requestSeconds: 10))
        let slow = try SocketClient(port: port, from: "127.0.0.5")
        slow.send("POST /chatops/slash HTTP/1.1\r\nHost: x\r\n")
        let began = Date()
        XCTAssertTrue(slow.closedByServer(within: 3))
        XCTAssertLessThan(Date().timeIntervalSince(began), 2, "cut at the head time, well before the request time")
        endpoint?.stop()
        endpoint = nil
        let logged = try entries()
        XCTAssertTrue(
            logged.contains { $0.reason.contains("no complete request head") && $0.remoteAddress == "127.0.0.5" },
            "\(logged)")
    }

    func testTheForwardedAddressIsBelievedOnlyOverTheUnixSocketOrWithTheProxysSecret() throws {
        let forged = "v0=" + String(repeating: "cd", count: 32)
        let forwarded = "X-Forwarded-For: 203.0.113.1, 10.0.0.9\r\n"
        let socket = folder.appendingPathComponent("chatops.sock").path
        _ = try start(unixSocket: socket)
        let viaSocket = try SocketClient(unixSocket: socket)
        viaSocket.send(slackRequest(signature: forged, extraHeaders: forwarded))
        XCTAssertTrue(viaSocket.readAll(seconds: 3).hasPrefix("HTTP/1.1 401"))
        let answer = try SocketClient(unixSocket: socket)
        answer.send(slackRequest())
        XCTAssertTrue(answer.readAll(seconds: 3).hasPrefix("HTTP/1.1 200"), "a signed request over the socket")
        endpoint?.stop()
        endpoint = nil
        var logged = try entries()
        XCTAssertEqual(logged.first?.remoteAddress, "10.0.0.9", "the address the proxy added: \(logged)")
        XCTAssertEqual(logged.first?.proxy, "unix")
        XCTAssertFalse(FileManager.default.fileExists(atPath: socket), "the socket is removed on stop")

        try FileManager.default.removeItem(at: auditURL)
        let port = try start(
            proxy: ChatOpsProxy(secretHeader: "X-Pipe-Proxy", secret: .environment("unused")),
            proxySecret: "proxy-shared-secret")
        let sends = [
            "", "X-Pipe-Proxy: wrong\r\n", "X-Pipe-Proxy: proxy-shared-secret\r\nX-Pipe-Proxy: proxy-shared-secret\r\n",
            "X-Pipe-Proxy: proxy-shared-secret\r\n",
        ]
        for extra in sends {
            let reply = try SocketClient.exchange(
                slackRequest(signature: forged, extraHeaders: forwarded + extra), port: port, from: "127.0.0.3")
            XCTAssertTrue(reply.hasPrefix("HTTP/1.1 401"), reply)
        }
        endpoint?.stop()
        endpoint = nil
        logged = try entries()
        XCTAssertEqual(
            logged.map(\.remoteAddress), ["127.0.0.3", "127.0.0.3", "127.0.0.3", "10.0.0.9"],
            "believed only with the one right secret")
        XCTAssertEqual(logged.last?.proxy, "127.0.0.3")
    }
}
