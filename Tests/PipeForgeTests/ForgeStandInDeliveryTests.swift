import Foundation
import PipeTestSupport
import XCTest

/// Webhook deliveries of the contract pack's payloads, with the forges' real headers and signatures.
final class ForgeStandInDeliveryTests: XCTestCase {
    private var standIn: ForgeStandIn!
    private let pack = RepositoryPaths.root.appendingPathComponent("Tests/ForgeContract")

    override func setUpWithError() throws { standIn = try ForgeStandIn.start() }
    override func tearDown() { standIn?.stop() }

    private func vector(_ folder: String, _ file: String) throws -> String {
        try String(
            contentsOf: pack.appendingPathComponent("\(folder)/webhooks/signature-vector/\(file)"), encoding: .utf8)
    }

    /// The `Name: value` lines of a vector's expected-headers.txt (comments left out).
    private func expectedHeaders(_ folder: String) throws -> [(String, String)] {
        try vector(folder, "expected-headers.txt").split(separator: "\n").compactMap { line in
            guard !line.hasPrefix("#"), let colon = line.range(of: ": ") else { return nil }
            return (String(line[..<colon.lowerBound]), String(line[colon.upperBound...]))
        }
    }

    private func deliverVector(_ forge: String, _ signature: ForgeStandInDelivery.Signature) throws -> ReceivedWebhook {
        let folder = forge == "forgejo" ? "gitea" : forge
        var delivery = ForgeStandInDelivery(
            forge: forge, payload: "signature-vector/payload.json", url: standIn.sinkURL,
            secret: try vector(folder, forge == "gitlab" ? "secret-token.txt" : "secret.txt"), signature: signature,
            event: forge == "github" ? "ping" : nil)
        if forge == "gitlab" {
            let expected = Dictionary(try expectedHeaders("gitlab"), uniquingKeysWith: { $1 })
            delivery.signingToken = try vector("gitlab", "signing-token.txt")
            delivery.deliveryID = expected["webhook-id"]
            delivery.timestamp = expected["webhook-timestamp"].flatMap(Int.init)
        }
        let result = try standIn.deliver(delivery)
        XCTAssertEqual(result.status, 200, result.answer)
        return try XCTUnwrap(standIn.received().last)
    }

    func testCorrectlySignedDeliveriesCarryExactlyTheVectorsHeaders() throws {
        for (forge, folder) in [("github", "github"), ("forgejo", "gitea"), ("gitlab", "gitlab")] {
            let received = try deliverVector(forge, .correct)
            for (name, value) in try expectedHeaders(folder) where !(forge == "github" && name == "X-Gitea-Signature") {
                XCTAssertEqual(received.header(name), value, "\(forge) \(name)")
                XCTAssertTrue(
                    received.headers.contains { $0.first == name }, "\(forge) spells \(name) as the forge does")
            }
            let payload = try vector(folder, "payload.json")
            XCTAssertEqual(received.body, payload, "\(forge): the body is the payload's exact bytes")
        }
    }

    func testTamperedWrongAndMissingSignaturesDoNotMatch() throws {
        for (forge, folder, header) in [
            ("github", "github", "X-Hub-Signature-256"), ("forgejo", "gitea", "X-Gitea-Signature"),
            ("gitlab", "gitlab", "webhook-signature"),
        ] {
            let expected = Dictionary(try expectedHeaders(folder), uniquingKeysWith: { $1 })
            let payload = try vector(folder, "payload.json")
            let tampered = try deliverVector(forge, .tampered)
            XCTAssertEqual(tampered.header(header), expected[header], "\(forge): signed as the payload")
            XCTAssertNotEqual(tampered.body, payload, "\(forge): but the body differs")
            if forge != "gitlab" {
                let secret = try vector(folder, "secret.txt")
                XCTAssertNotEqual(
                    try hmac(secret, tampered.body),
                    tampered.header(header)?.replacingOccurrences(of: "sha256=", with: ""),
                    "\(forge): the signature does not match the tampered body")
                XCTAssertEqual(try hmac(secret, payload), expected["X-Gitea-Signature"] ?? expected[header])
            }
            let wrong = try deliverVector(forge, .incorrect)
            XCTAssertNotEqual(wrong.header(header), expected[header], "\(forge)")
            XCTAssertEqual(wrong.body, payload)
            let unsigned = try deliverVector(forge, .none)
            if forge == "forgejo" {
                XCTAssertEqual(unsigned.header("X-Gitea-Signature"), "", "Gitea sends empty digests without a secret")
                XCTAssertEqual(unsigned.header("X-Hub-Signature-256"), "sha256=")
            } else {
                XCTAssertNil(unsigned.header(header), "\(forge)")
            }
        }
        let token = try deliverVector("gitlab", .incorrect)
        XCTAssertNotEqual(token.header("X-Gitlab-Token"), try vector("gitlab", "secret-token.txt"))
    }

    func testExamplePayloadsCarryEachForgesEventHeaders() throws {
        let cases: [(String, String, [String: String])] = [
            ("github", "pull_request.synchronize.octokit.json", ["X-GitHub-Event": "pull_request"]),
            ("github", "check_run.rerequested.octokit.json", ["X-GitHub-Event": "check_run"]),
            (
                "gitea", "pull_request_synchronized.go-scm.json",
                [
                    "X-Gitea-Event": "pull_request", "X-Gitea-Event-Type": "pull_request_sync",
                    "X-GitHub-Event": "pull_request",
                ]
            ),
            ("gitlab", "merge-request-hook.open.docs.json", ["X-Gitlab-Event": "Merge Request Hook"]),
            ("gitlab", "note_merge_request.go-gitlab.json", ["X-Gitlab-Event": "Note Hook"]),
        ]
        for (forge, payload, headers) in cases {
            let result = try standIn.deliver(
                .init(forge: forge, payload: payload, url: standIn.sinkURL, secret: "s3cret"))
            XCTAssertEqual(result.status, 200, result.answer)
            let received = try XCTUnwrap(standIn.received().last)
            for (name, value) in headers { XCTAssertEqual(received.header(name), value, "\(payload) \(name)") }
            let id = received.header(forge == "gitlab" ? "Idempotency-Key" : "X-GitHub-Delivery")
            XCTAssertEqual(id?.count, 36, "\(payload) carries a delivery id")
        }
    }

    func testADeliveryReportsTheReceiversAnswerAndCanBeRepeated() throws {
        try standIn.setReceiverStatus(401)
        let first = try standIn.deliver(
            .init(forge: "github", payload: "pull_request.opened.octokit.json", url: standIn.sinkURL, secret: "s"))
        XCTAssertEqual(first.status, 401)
        try standIn.setReceiverStatus(202)
        let again = try standIn.repeatDelivery(first.id, newDeliveryID: false)
        let replay = try standIn.repeatDelivery(first.id, newDeliveryID: true)
        XCTAssertEqual([again.status, replay.status], [202, 202])
        let received = try standIn.received()
        XCTAssertEqual(received.count, 3)
        XCTAssertEqual(received[1].header("X-GitHub-Delivery"), received[0].header("X-GitHub-Delivery"))
        XCTAssertNotEqual(received[2].header("X-GitHub-Delivery"), received[0].header("X-GitHub-Delivery"))
        XCTAssertEqual(Set(received.map(\.body)).count, 1, "the same signed body each time")
        XCTAssertEqual(Set(received.map { $0.header("X-Hub-Signature-256") }).count, 1)
        let unreachable = try standIn.deliver(
            .init(forge: "github", payload: "ping.octokit.json", url: URL(string: "http://127.0.0.1:9/")!, secret: "s"))
        XCTAssertEqual(unreachable.status, 0, unreachable.answer)
    }

    func testAPayloadOutsideThePackIsRefused() throws {
        XCTAssertThrowsError(
            try standIn.deliver(.init(forge: "github", payload: "../../README.md", url: standIn.sinkURL, secret: "s")))
    }

    private func hmac(_ secret: String, _ body: String) throws -> String {
        let result = try CommandRunner.run(
            URL(fileURLWithPath: "/usr/bin/openssl"), ["dgst", "-sha256", "-hmac", secret], stdin: Data(body.utf8))
        return String(result.stdout.split(separator: " ").last ?? "").trimmingCharacters(in: .whitespacesAndNewlines)
    }
}
