import Foundation
import PipeChatOps
import PipeHTTP
import PipeTestSupport
import XCTest

/// What keeps the audit log bounded: fields cut, refusals counted per peer, the file rotated; and the one rule for
/// headers a proxy adds.
final class AuditBoundsTests: XCTestCase {
    private let start = Date(timeIntervalSince1970: 1_800_000_000)

    private func refusal(_ peer: String, kind: String = "bad signature", at offset: Double = 0) -> ChatAuditEntry {
        ChatAuditEntry(
            at: start.addingTimeInterval(offset), remoteAddress: peer, status: 401, decision: .refused,
            reason: "the request's signature does not match", kind: kind)
    }

    func testEveryFieldIsCutToTheLimitWithItsLength() {
        let long = String(repeating: "é", count: 5000)
        let entry = ChatAuditEntry(
            at: start, remoteAddress: long, status: 404, decision: .refused, reason: long, verified: true,
            userID: long, userName: long, channelID: long, teamID: long, command: long, text: long, runID: long,
            kind: long, proxy: long)
        let bounded = entry.bounded(fieldBytes: 200)
        let fields = [
            bounded.remoteAddress, bounded.reason, bounded.userID, bounded.userName, bounded.channelID, bounded.teamID,
            bounded.command, bounded.text, bounded.runID, bounded.kind, bounded.proxy,
        ]
        for field in fields {
            XCTAssertLessThanOrEqual(field?.utf8.count ?? 0, 200)
            XCTAssertTrue(field?.hasSuffix("…[cut: 10000 bytes]") ?? false, field ?? "nil")
        }
        XCTAssertEqual(
            ChatAuditEntry(at: start, remoteAddress: "a", status: nil, decision: .refused, reason: "b")
                .bounded(fieldBytes: 200).reason, "b", "short fields are kept as they are")
        for text in InjectionCorpus.strings {
            let cut = refusal(text).bounded(fieldBytes: 64)
            XCTAssertLessThanOrEqual(cut.remoteAddress.utf8.count, 64, text)
        }
    }

    func testRefusalsAreCountedPerPeerAfterTheFirstFew() {
        let throttle = RefusalThrottle(perPeer: 2, window: 60)
        var written: [ChatAuditEntry] = []
        for index in 0..<41 {
            written += throttle.admit(
                refusal("10.0.0.9", kind: index < 38 ? "bad signature" : "stale timestamp"), now: start)
        }
        written += throttle.admit(refusal("10.0.0.7"), now: start)
        XCTAssertEqual(written.map(\.remoteAddress), ["10.0.0.9", "10.0.0.9", "10.0.0.7"])
        XCTAssertTrue(throttle.due(now: start.addingTimeInterval(59)).isEmpty, "the window has not ended")
        let counts = throttle.due(now: start.addingTimeInterval(60))
        XCTAssertEqual(counts.count, 1, "10.0.0.7 had nothing left to count")
        XCTAssertEqual(
            counts.first?.reason,
            "41 requests refused from 10.0.0.9 in the last minute: bad signature ×36, stale timestamp ×3 "
                + "(the first 2 are logged one by one)")
        XCTAssertEqual(counts.first?.count, 41)
        XCTAssertEqual(
            throttle.admit(refusal("10.0.0.9", at: 61), now: start.addingTimeInterval(61)).count, 1,
            "a new window logs again")
    }

    func testAFloodFromManyPeersIsBoundedToo() {
        let throttle = RefusalThrottle(perPeer: 5, window: 60, budget: 100, maxPeers: 50)
        var written = 0
        for peer in 0..<400 {
            for _ in 0..<5 { written += throttle.admit(refusal("10.1.\(peer / 250).\(peer % 250)"), now: start).count }
        }
        XCTAssertEqual(written, 100, "the budget for all peers")
        let counts = throttle.drain(now: start)
        XCTAssertEqual(counts.count, 31, "30 peers past the budget, and one count for the peers past 50")
        XCTAssertEqual(counts.first { $0.remoteAddress == "other peers" }?.count, 1750)
    }

    func testTheAuditFileIsRotatedAtItsCap() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("pipe-audit-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: folder) }
        let url = folder.appendingPathComponent("audit.jsonl")
        let log = try JSONLinesAuditLog(url: url, maxBytes: 4096)
        for index in 0..<200 { try log.record(refusal("10.0.0.\(index % 250)")) }
        let size = { (url: URL) in
            ((try? FileManager.default.attributesOfItem(atPath: url.path))?[.size] as? NSNumber)?.intValue ?? 0
        }
        XCTAssertLessThanOrEqual(size(url), 4096)
        XCTAssertLessThanOrEqual(size(log.rotatedURL), 4096)
        XCTAssertGreaterThan(size(log.rotatedURL), 3000)
        XCTAssertEqual(try JSONLinesAuditLog.entries(at: url).last?.remoteAddress, "10.0.0.199")
        let reopened = try JSONLinesAuditLog(url: url, maxBytes: 4096)
        for _ in 0..<40 { try reopened.record(refusal("10.0.0.1")) }
        XCTAssertLessThanOrEqual(size(url), 4096, "the size is known again after a restart")
    }

    func testHeadersAProxyAddsAreBelievedOnlyOverTheSocketOrWithTheSecret() {
        func head(_ headers: [String: String], repeated: Set<String> = [], unix: Bool = false) -> HTTPRequestHead {
            HTTPRequestHead(
                method: "POST", path: "/", headers: headers, repeatedHeaders: repeated,
                remoteAddress: unix ? "unix" : "127.0.0.1", viaUnixSocket: unix, receivedAt: start)
        }
        let trust = ProxyHeaderTrust(secretHeader: "X-Proxy-Secret", secret: "s3cret")
        let forwarded = ["x-forwarded-for": "198.51.100.1, 10.0.0.9"]
        XCTAssertEqual(trust.clientAddress(head(forwarded)), "127.0.0.1", "no secret: a local process wrote it")
        XCTAssertEqual(trust.clientAddress(head(forwarded, unix: true)), "10.0.0.9", "the last one, the proxy's own")
        XCTAssertEqual(
            trust.clientAddress(head(forwarded.merging(["x-proxy-secret": "s3cret"]) { $1 })), "10.0.0.9")
        for wrong in ["s3cre", "s3cret ", "S3CRET", ""] {
            XCTAssertEqual(trust.clientAddress(head(forwarded.merging(["x-proxy-secret": wrong]) { $1 })), "127.0.0.1")
        }
        XCTAssertEqual(
            trust.clientAddress(
                head(forwarded.merging(["x-proxy-secret": "s3cret, s3cret"]) { $1 }, repeated: ["x-proxy-secret"])),
            "127.0.0.1", "the secret header sent twice")
        XCTAssertNil(ProxyHeaderTrust().proxyHeader("x-forwarded-for", in: head(forwarded)), "no proxy configured")
        for text in InjectionCorpus.strings {
            XCTAssertEqual(trust.clientAddress(head(["x-forwarded-for": text], unix: true)), "unix", text)
        }
    }
}
