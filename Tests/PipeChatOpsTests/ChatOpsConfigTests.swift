import Foundation
import PipeChatOps
import PipeCore
import PipeSpec
import XCTest

/// The `chatops:` section and the authorization it gives.
final class ChatOpsConfigTests: XCTestCase {
    private func load(_ yaml: String) throws -> ChatOpsConfig {
        let root = try XCTUnwrap(try YAMLParser.parse(yaml, file: "controller.yml"))
        let section = try XCTUnwrap(root.mapping?.first { $0.key.keyText == "chatops" }?.value)
        return try ChatOpsConfigLoader.load(section, file: "controller.yml")
    }

    private func problems(_ yaml: String) -> String {
        do {
            _ = try load(yaml)
            return ""
        } catch {
            return "\(error)"
        }
    }

    private let full = """
        schedules: {}
        chatops:
          address: 0.0.0.0
          port: 9000
          path: /slack/pipe
          dialect: slack
          secret:
            file: secrets/slack-signing-secret
          timestamp-window: 2m
          response-urls: [https://hooks.slack.com/]
          results: private
          limits:
            body-bytes: 4096
            header-bytes: 4096
            connections: 8
            request-time: 5s
            requests-per-minute: 6
          authorization:
            users:
              U01ALICE:
                name: alice
                run: ["*"]
                signoff: [app-intents/shortcuts, "haptics/*"]
              U02BOB:
                run: [app-intents]
            channels:
              C01IOS:
                run: ["app-*"]
        """

    func testAFullSectionLoads() throws {
        let config = try load(full)
        XCTAssertEqual(config.address, "0.0.0.0")
        XCTAssertEqual(config.port, 9000)
        XCTAssertEqual(config.path, "/slack/pipe")
        XCTAssertEqual(config.secret, .file("secrets/slack-signing-secret"))
        XCTAssertEqual(config.timestampWindowSeconds, 120)
        XCTAssertFalse(config.resultsInChannel)
        XCTAssertEqual(
            config.limits,
            ChatOpsLimits(bodyBytes: 4096, headerBytes: 4096, connections: 8, requestSeconds: 5, requestsPerMinute: 6))
        XCTAssertEqual(config.authorization.users["U01ALICE"]?.signoff, ["app-intents/shortcuts", "haptics/*"])
        XCTAssertEqual(config.authorization.channels["C01IOS"]?.run, ["app-*"])
    }

    func testTheSecretIsNeverTakenFromTheFileItself() {
        let text = problems(
            """
            chatops:
              secret: abc123-very-secret
              authorization: {users: {U1: {run: ["*"]}}}
            """)
        XCTAssertTrue(
            text.contains("controller.yml:2:11: error: chatops.secret: the secret itself is never written"), text)
        XCTAssertFalse(text.contains("abc123-very-secret"), "the value is not repeated:\n\(text)")
    }

    func testEveryProblemIsReportedWithItsPlace() {
        let text = problems(
            """
            chatops:
              dialect: teams
              port: 70000
              response-urls: ["https://chat.example.com:@10.0.0.1/x"]
              limts: {}
              secret: {env: A, file: b}
              authorization:
                users:
                  U1: {run: x, signoff: [shortcuts]}
                channels:
                  C1: {signoff: ["*/*"]}
            """)
        for expected in [
            "controller.yml:2:12: error: chatops.dialect: must be slack or mattermost",
            "controller.yml:3:9: error: chatops.port: must be a whole number from 0 to 65535",
            "controller.yml:4:19: error: chatops.response-urls: 'https://chat.example.com:@10.0.0.1/x': the URL holds "
                + "user info",
            "controller.yml:5:3: error: chatops.limts: unknown key; did you mean 'limits'?",
            "controller.yml:6:11: error: chatops.secret: give exactly one of env:",
            "chatops.authorization.users.U1.signoff: 'shortcuts' must be pipeline/layer",
            "chatops.authorization.channels.C1.signoff: unknown key",
        ] {
            XCTAssertTrue(text.contains(expected), "missing \(expected) in:\n\(text)")
        }
        XCTAssertTrue(
            problems("chatops:\n  secret: {env: S}\n").contains("missing required key 'authorization'"))
    }

    func testAuthorizationByUserAndChannel() throws {
        let rules = try load(full).authorization
        XCTAssertTrue(rules.mayRun("haptics", user: "U01ALICE", channel: "C99"))
        XCTAssertTrue(rules.mayRun("app-intents", user: "U02BOB", channel: "C99"))
        XCTAssertFalse(rules.mayRun("haptics", user: "U02BOB", channel: "C99"))
        XCTAssertTrue(rules.mayRun("app-store", user: "U03CAROL", channel: "C01IOS"), "the channel allows app-*")
        XCTAssertFalse(rules.mayRun("haptics", user: "U03CAROL", channel: "C01IOS"))
        XCTAssertTrue(rules.mayRead(user: "U03CAROL", channel: "C01IOS"))
        XCTAssertFalse(rules.mayRead(user: "U03CAROL", channel: "C99"))

        XCTAssertTrue(rules.maySignoff(pipeline: "app-intents", layer: "shortcuts", user: "U01ALICE"))
        XCTAssertTrue(rules.maySignoff(pipeline: "haptics", layer: "device", user: "U01ALICE"))
        XCTAssertFalse(rules.maySignoff(pipeline: "app-intents", layer: "device", user: "U01ALICE"))
        XCTAssertFalse(rules.maySignoff(pipeline: "app-intents", layer: "shortcuts", user: "U02BOB"))
        XCTAssertFalse(
            rules.maySignoff(pipeline: "app-intents", layer: "shortcuts", user: "U03CAROL"),
            "a channel never grants sign-offs")

        let refusal = rules.runRefusal("haptics", user: "U02BOB", channel: "C99", who: "bob (U02BOB)")
        XCTAssertTrue(refusal.contains("bob (U02BOB) may not run haptics"), refusal)
        XCTAssertTrue(refusal.contains("the user may run app-intents"), refusal)
        let signoff = rules.signoffRefusal(pipeline: "app-intents", layer: "shortcuts", user: "U02BOB", who: "bob")
        XCTAssertTrue(signoff.contains("the user may sign nothing"), signoff)
    }

    func testTheSecretIsReadFromTheEnvironmentOrAFile() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("pipe-chatops-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        try "from-a-file\n".write(to: folder.appendingPathComponent("secret"), atomically: true, encoding: .utf8)
        XCTAssertEqual(try ChatOpsSecret.read(.file("secret"), environment: [:], baseDirectory: folder), "from-a-file")
        XCTAssertEqual(
            try ChatOpsSecret.read(.environment("S"), environment: ["S": "env-value"], baseDirectory: folder),
            "env-value")
        XCTAssertThrowsError(try ChatOpsSecret.read(.environment("S"), environment: [:], baseDirectory: folder))
        XCTAssertThrowsError(try ChatOpsSecret.read(.environment("S"), environment: ["S": " "], baseDirectory: folder))
        XCTAssertThrowsError(try ChatOpsSecret.read(.file("missing"), environment: [:], baseDirectory: folder))
    }

    func testTheRateLimitAllowsABurstThenOneAtATime() {
        let limiter = RateLimiter(perMinute: 3)
        let start = Date(timeIntervalSince1970: 1_000)
        for _ in 0..<3 { XCTAssertNil(limiter.take("U1", now: start)) }
        let wait = limiter.take("U1", now: start)
        XCTAssertEqual(wait ?? 0, 20, accuracy: 0.01)
        XCTAssertNil(limiter.take("U2", now: start), "per user")
        XCTAssertNil(limiter.take("U1", now: start.addingTimeInterval(20)))
        XCTAssertNotNil(limiter.take("U1", now: start.addingTimeInterval(20)))
    }

    func testTheListenerProxyAndAuditLimitsLoadAndEveryMistakeIsPlaced() throws {
        let config = try load(
            """
            chatops:
              unix-socket: /run/pipe/chatops.sock
              proxy:
                forwarded-for: X-Real-IP
                secret-header: X-Pipe-Proxy
                secret: {env: PIPE_PROXY_SECRET}
              secret: {env: S}
              limits:
                connections-per-peer: 4
                head-time: 2s
                audit-field-bytes: 256
                refusals-logged-per-peer: 3
                refusal-window: 30s
                audit-log-bytes: 1048576
              authorization: {users: {U1: {run: ["*"]}}}
            """)
        XCTAssertEqual(config.listener, .unixSocket(path: "/run/pipe/chatops.sock"))
        XCTAssertEqual(
            config.proxy,
            ChatOpsProxy(
                forwardedFor: "X-Real-IP", secretHeader: "X-Pipe-Proxy", secret: .environment("PIPE_PROXY_SECRET")))
        XCTAssertEqual(
            config.limits,
            ChatOpsLimits(
                connectionsPerPeer: 4, headSeconds: 2, auditFieldBytes: 256, refusalsLoggedPerPeer: 3,
                refusalWindowSeconds: 30, auditLogBytes: 1_048_576))
        XCTAssertEqual(config.serverLimits.maxConnectionsPerPeer, 4)
        XCTAssertEqual(config.serverLimits.headSeconds, 2)

        let text = problems(
            """
            chatops:
              port: 9000
              unix-socket: /run/pipe/chatops.sock
              proxy:
                forwarded-for: "X Forwarded"
                secret-header: X-Pipe-Proxy
              secret: {env: S}
              limits:
                connections-per-peer: 0
                head-time: 20s
                audit-field-bytes: 10
                audit-log-bytes: 100
              authorization: {}
            """)
        for expected in [
            "controller.yml:2:9: error: chatops.port: is not used with unix-socket",
            "controller.yml:5:20: error: chatops.proxy.forwarded-for: 'X Forwarded' is not a header name",
            "controller.yml:5:5: error: chatops.proxy: give both secret-header",
            "controller.yml:9:27: error: chatops.limits.connections-per-peer: must be a whole number from 1",
            "controller.yml:10:16: error: chatops.limits.head-time: must not be longer than request-time",
            "controller.yml:11:24: error: chatops.limits.audit-field-bytes: must be a whole number from 64",
            "controller.yml:12:22: error: chatops.limits.audit-log-bytes: must be a whole number from 65536",
        ] {
            XCTAssertTrue(text.contains(expected), "missing \(expected) in:\n\(text)")
        }
        XCTAssertTrue(
            problems("chatops:\n  secret: {env: S}\n  proxy: {}\n  authorization: {}\n").contains(
                "chatops.proxy: a header the proxy adds is believed only over unix-socket or with secret-header"))
    }
}
