import Foundation
import PipeTestSupport
import XCTest

/// Chat requests reaching either of two controllers that share a PostgreSQL store: a request let through at one
/// is a replay at the other, and a user's rate is one across both.
final class ClusterChatOpsTests: EmulatedHostTestCase {
    private let secret = "e2e-cluster-signing-secret-7c1d"
    private var controllers: [BackgroundPipe] = []

    override func tearDown() {
        for controller in controllers {
            kill(controller.pid, SIGTERM)
            controller.wait(timeout: 30)
        }
        super.tearDown()
    }

    func testARequestTakenAtOneControllerIsAReplayAtTheOtherAndTheRateIsShared() throws {
        let url = try PostgresServer.shared().createDatabase()
        let project = try makeProject()
        let receiver = try ResponseReceiver()
        defer { receiver.stop() }
        try secret.write(
            to: project.url.appendingPathComponent(".pipe/chatops-secret"), atomically: true, encoding: .utf8)
        try """
        store: \(url)
        chatops:
          address: 127.0.0.1
          port: 0
          path: /chatops/slash
          secret:
            file: chatops-secret
          response-urls: ["http://127.0.0.1:"]
          limits:
            requests-per-minute: 2
          authorization:
            users:
              U1ALICE:
                run: ["*"]
        """.write(to: project.url.appendingPathComponent(".pipe/controller.yml"), atomically: true, encoding: .utf8)
        let endpoints = try (0..<2).map { _ in try startController(in: project) }
        let slack = SlackSlashCommand(secret: secret, responseURL: receiver.url)

        let body = slack.form("runs")
        let now = Date()
        let signature = slack.signature(body, at: now)
        let first = try slack.post(body, to: endpoints[0], timestamp: now, signature: signature)
        XCTAssertEqual(first.status, 200, first.body)
        let replayed = try slack.post(body, to: endpoints[1], timestamp: now, signature: signature)
        XCTAssertEqual(replayed.status, 401, "the other controller knows the request: \(replayed.body)")
        XCTAssertTrue(replayed.body.contains("replayed request"), replayed.body)

        // 2 a minute for alice in the whole cluster: one at each, then the third is refused wherever it lands.
        XCTAssertEqual(try slack.post(slack.form("runs"), to: endpoints[1]).status, 200)
        let third = try slack.post(slack.form("runs"), to: endpoints[0])
        XCTAssertEqual(third.status, 429, "the rate is counted across controllers: \(third.body)")
    }

    /// `pipe controller` with the project's .pipe/controller.yml, once its chat endpoint listens; its URL.
    private func startController(in project: PipeProject) throws -> String {
        let controller = try BackgroundPipe(["controller", "--config", ".pipe/controller.yml"], in: project)
        controllers.append(controller)
        var port: String?
        waitUntil("the controller's chat endpoint listens", timeout: 30) {
            let text = controller.chunks().map(\.text).joined()
            port = text.range(of: #"127\.0\.0\.1:(\d+)"#, options: .regularExpression).map {
                String(text[$0].split(separator: ":")[1])
            }
            return port != nil || !controller.process.isRunning
        }
        return "http://127.0.0.1:\(try XCTUnwrap(port, controller.chunks().map(\.text).joined()))/chatops/slash"
    }
}
