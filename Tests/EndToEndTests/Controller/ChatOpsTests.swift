import Foundation
import PipeBasics
import PipeTestSupport
import XCTest

/// `pipe chatops serve` end to end: real HTTP requests signed as Slack signs them (sent with curl), runs on the
/// emulated Mac host, and the chat's response URL played by a listener in the test.
final class ChatOpsTests: EmulatedHostTestCase {
    private let secret = "e2e-signing-secret-5f2a"
    private var server: BackgroundPipe?
    private var receiver: ResponseReceiver!
    private var endpoint = ""
    /// curl's options to reach the endpoint (its Unix socket, when it listens on one).
    private var route: [String] = []
    private var project: PipeProject!

    override func setUpWithError() throws {
        try super.setUpWithError()
        receiver = try ResponseReceiver()
        project = try makeProject()
    }

    override func tearDown() {
        if let server {
            kill(server.pid, SIGTERM)
            server.wait(timeout: 30)
        }
        receiver?.stop()
        super.tearDown()
    }

    private var auditURL: URL { project.url.appendingPathComponent(".pipe/chatops-audit.jsonl") }

    /// Starts the endpoint on a free port with a config naming alice (may run anything and sign shortcuts) and bob
    /// (may read, run nothing).
    /// - Parameters:
    ///   - httpSection: under the controller, listen where its `http:` section says (not `chatops:`).
    private func startServer(
        limits: String = "", underController: Bool = false, httpSection: Bool = false, unixSocket: String? = nil
    ) throws {
        try secret.write(
            to: project.url.appendingPathComponent(".pipe/chatops-secret"), atomically: true, encoding: .utf8)
        let config = """
            chatops:
              address: 127.0.0.1
              port: 8088
              path: /chatops/slash
              secret:
                file: chatops-secret
              response-urls: ["http://127.0.0.1:"]
              limits:
                body-bytes: 2048
                request-time: 2s
                requests-per-minute: 5\(limits)
              authorization:
                users:
                  U1ALICE:
                    run: ["*"]
                    signoff: [app-intents/shortcuts]
                  U2BOB:
                    run: []
            """
        let server: BackgroundPipe
        if let unixSocket {
            try config.replacingOccurrences(of: "address: 127.0.0.1\n  port: 8088", with: "unix-socket: \(unixSocket)")
                .write(to: project.url.appendingPathComponent(".pipe/chatops.yml"), atomically: true, encoding: .utf8)
            server = try BackgroundPipe(["chatops", "serve", "--config", ".pipe/chatops.yml"], in: project)
            self.server = server
            waitUntil("the endpoint listens on its socket", timeout: 20) {
                server.chunks().map(\.text).joined().contains("listening on unix:\(unixSocket)")
            }
            endpoint = "http://localhost/chatops/slash"
            route = ["--unix-socket", unixSocket]
            return
        } else if underController {
            // The controller's config holds the same section; the file names the secret relative to itself.
            let controllerConfig =
                httpSection
                ? config.replacingOccurrences(of: "  address: 127.0.0.1\n  port: 8088\n", with: "")
                    + "\nhttp:\n  address: 127.0.0.1\n  port: 0\n  base-url: https://ci.example.com/pipe\n"
                : config.replacingOccurrences(of: "port: 8088", with: "port: 0")
            try controllerConfig.write(
                to: project.url.appendingPathComponent(".pipe/controller.yml"), atomically: true, encoding: .utf8)
            server = try BackgroundPipe(["controller", "--config", ".pipe/controller.yml"], in: project)
        } else {
            try config.write(
                to: project.url.appendingPathComponent(".pipe/chatops.yml"), atomically: true, encoding: .utf8)
            server = try BackgroundPipe(
                ["chatops", "serve", "--config", ".pipe/chatops.yml", "--port", "0"], in: project)
        }
        self.server = server
        var port: String?
        waitUntil("the endpoint listens", timeout: 20) {
            let text = server.chunks().map(\.text).joined()
            port = text.range(of: #"127\.0\.0\.1:(\d+)"#, options: .regularExpression).map {
                String(text[$0].split(separator: ":")[1])
            }
            return port != nil
        }
        endpoint = "http://127.0.0.1:\(port ?? "0")/chatops/slash"
    }

    private var slack: SlackSlashCommand { SlackSlashCommand(secret: secret, responseURL: receiver.url) }

    private func form(_ text: String, user: String = "U1ALICE", name: String = "alice") -> String {
        slack.form(text, user: user, name: name)
    }

    private func signature(_ body: String, at timestamp: Date) -> String { slack.signature(body, at: timestamp) }

    private func post(
        _ body: String, timestamp: Date = Date(), signature: String? = nil, contentType: String? = nil,
        extra: [String] = []
    ) throws -> SlackSlashCommand.Answer {
        try slack.post(
            body, to: endpoint, route: route, timestamp: timestamp, signature: signature, contentType: contentType,
            extra: extra)
    }

    private func audit() throws -> [[String: Any]] {
        let text = (try? String(contentsOf: auditURL, encoding: .utf8)) ?? ""
        return try text.split(separator: "\n").map {
            try XCTUnwrap(try JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any])
        }
    }

    private func storedRuns() throws -> [Any] {
        let result = try project.pipe(["runs", "list", "--json"])
        XCTAssertEqual(result.exitCode, 0, result.combined)
        return try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [Any])
    }

    // MARK: - Tests

    func testASignedRunIsAcknowledgedWithinThreeSecondsRunsAndReportsToTheChat() throws {
        try startServer()
        let answer = try post(form("run app-intents ref=main"))
        XCTAssertEqual(answer.status, 200, answer.body)
        XCTAssertLessThan(answer.seconds, 3, "acknowledged within Slack's 3 s")
        let ack = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(answer.body.utf8)) as? [String: Any])
        XCTAssertEqual(ack["response_type"] as? String, "ephemeral")
        let text = answer.text
        XCTAssertTrue(text.hasPrefix("queued as run ") && text.hasSuffix(" — app-intents @ main"), text)
        let runID = String(text.dropFirst("queued as run ".count).prefix { $0 != " " })

        waitUntil("the chat received started, merge gate and final messages", timeout: 60) {
            receiver.texts.count >= 3
        }
        let texts = receiver.texts
        XCTAssertEqual(texts.count, 3, "\(texts)")
        XCTAssertTrue(texts[0].contains("run `\(runID)` started") && texts[0].contains("on host `mac-1`"), texts[0])
        XCTAssertTrue(texts[0].contains("UDID `"), "started names the simulator: \(texts[0])")
        XCTAssertTrue(texts[1].hasPrefix("✅ merge gate passed"), texts[1])
        XCTAssertTrue(texts[1].contains("| Layer | Gate | Outcome |"), "the Markdown summary: \(texts[1])")
        XCTAssertTrue(texts[2].contains("finished: merge gate passed (exit 0)"), texts[2])
        XCTAssertEqual(receiver.objects.first?["response_type"] as? String, "in_channel")

        let record = try project.lastRecord()
        XCTAssertEqual(record["runID"] as? String, runID)
        let request = try XCTUnwrap(record["request"] as? [String: Any])
        XCTAssertEqual(request["requestedBy"] as? String, "alice (U1ALICE)")
        XCTAssertEqual(request["trigger"] as? String, "chat")
        XCTAssertEqual(request["ref"] as? String, "main")
        XCTAssertTrue((request["reason"] as? String ?? "").contains("/pipe run app-intents ref=main"), "\(request)")

        let status = try post(form("status"))
        XCTAssertEqual(status.status, 200)
        XCTAssertTrue(status.text.contains("run `\(runID)` · app-intents @ main · finished (exit 0)"), status.text)

        // Bob may read but sign nothing: refused, with the reason posted to the chat too, and nothing recorded.
        let bob = try post(form("signoff last logic pass os_version=17.5", user: "U2BOB", name: "bob"))
        XCTAssertEqual(bob.status, 403, bob.body)
        XCTAssertTrue(bob.text.contains("bob (U2BOB) may not sign off app-intents/logic"), bob.text)
        waitUntil("the refusal reached the chat", timeout: 10) { receiver.texts.count >= 4 }
        XCTAssertTrue(receiver.texts.last?.hasPrefix("refused: bob (U2BOB) may not sign off") ?? false)
        // Alice may sign shortcuts only.
        let alice = try post(form("signoff last logic pass"))
        XCTAssertEqual(alice.status, 403, alice.body)
        let shown = try XCTUnwrap(
            try JSONSerialization.jsonObject(
                with: Data(try project.pipe(["runs", "show", "last", "--json"]).stdout.utf8))
                as? [String: Any])
        XCTAssertEqual((shown["signoffs"] as? [Any])?.count, 0, "nothing was signed")

        // The checklist's required fields are checked as `pipe signoff` checks them.
        let missing = try post(form("signoff last shortcuts pass os_version=18.2"))
        XCTAssertTrue(missing.text.contains("app_build"), "the missing field is named: \(missing.text)")
        XCTAssertEqual(try project.pipe(["gate", "last", "--for", "release"]).exitCode, 4, "still pending")
        let signed = try post(
            form(#"signoff last shortcuts pass os_version=18.2 app_build=42 note="appeared at once""#))
        XCTAssertEqual(signed.status, 200, signed.body)
        let gate = try project.pipe(["gate", "last", "--for", "release"])
        XCTAssertEqual(gate.exitCode, 0, "signed in the chat, the release gate passes:\n\(gate.combined)")
        let afterSignoff = try project.pipe(["runs", "show", "last"])
        XCTAssertTrue(afterSignoff.stdout.contains("alice (U1ALICE)"), afterSignoff.stdout)

        let entries = try audit()
        let accepted = entries.filter { $0["decision"] as? String == "accepted" }
        XCTAssertEqual(accepted.first?["runID"] as? String, runID)
        XCTAssertEqual(accepted.first?["userID"] as? String, "U1ALICE")
        XCTAssertEqual(accepted.first?["command"] as? String, "run")
        XCTAssertEqual(entries.filter { $0["status"] as? Int == 403 }.count, 2)
        XCTAssertTrue(
            entries.contains { $0["command"] as? String == "signoff" && $0["decision"] as? String == "accepted" })
        XCTAssertFalse(try String(contentsOf: auditURL, encoding: .utf8).contains(secret))
        // The same log is in the run store, append-only.
        let database = project.url.appendingPathComponent(".pipe/pipe.db").path
        let stored = try CommandRunner.run(
            URL(fileURLWithPath: "/usr/bin/sqlite3"),
            [database, "SELECT count(*) FROM audit_log WHERE source = 'chat'"])
        XCTAssertEqual(
            Int(stored.stdout.trimmingCharacters(in: .whitespacesAndNewlines)), entries.count, stored.combined)
        let erase = try CommandRunner.run(
            URL(fileURLWithPath: "/usr/bin/sqlite3"), [database, "DELETE FROM audit_log"])
        XCTAssertNotEqual(erase.exitCode, 0, "the audit log refuses deletion")
    }

    func testTheControllerServesTheEndpointAndRunsChatRequestsFromItsQueue() throws {
        try startServer(underController: true)
        let answer = try post(form("run app-intents"))
        XCTAssertEqual(answer.status, 200, answer.body)
        XCTAssertLessThan(answer.seconds, 3)
        XCTAssertTrue(answer.text.hasPrefix("queued as run "), answer.text)
        let runID = String(answer.text.dropFirst("queued as run ".count).prefix { $0 != " " })
        waitUntil("the controller ran the queued chat request", timeout: 60) {
            receiver.texts.contains { $0.contains("finished: merge gate passed (exit 0)") }
        }
        let record = try project.lastRecord()
        XCTAssertEqual(record["runID"] as? String, runID, "the run keeps the id the chat was given")
        XCTAssertEqual((record["request"] as? [String: Any])?["trigger"] as? String, "chat")
    }

    func testTheControllerMountsTheEndpointOnTheListenerOfItsHTTPSection() throws {
        try startServer(underController: true, httpSection: true)
        let answer = try post(form("runs"))
        XCTAssertEqual(answer.status, 200, answer.body)
        let output = try XCTUnwrap(server).chunks().map(\.text).joined()
        XCTAssertTrue(output.contains("chat-ops at /chatops/slash (public URL https://ci.example.com/pipe)"), output)
    }

    func testRefusalsAreAnsweredWithTheRightStatusAndQueueNothing() throws {
        // Every refusal of this test is looked for one by one in the audit log, so none is only counted.
        try startServer(limits: "\n    refusals-logged-per-peer: 20")
        let run = form("run app-intents")
        XCTAssertEqual(try post(run, signature: "v0=" + String(repeating: "ab", count: 32)).status, 401, "forged")
        XCTAssertEqual(try post(run, timestamp: Date().addingTimeInterval(-400)).status, 401, "stale")
        XCTAssertEqual(try post(run, timestamp: Date().addingTimeInterval(400)).status, 401, "from the future")
        let stamp = Date()
        let runs = form("runs")
        XCTAssertEqual(try post(runs, timestamp: stamp).status, 200)
        let replay = try post(runs, timestamp: stamp)
        XCTAssertEqual(replay.status, 401, "replayed")
        XCTAssertTrue(replay.text.contains("replayed"), replay.text)
        // The captured request again with its signature's hex in other letter case: the same signature.
        let hex = signature(runs, at: stamp).dropFirst(3)
        let mixed = hex.enumerated().map { $0.offset % 3 == 0 ? $0.element.uppercased() : String($0.element) }.joined()
        for variant in ["v0=" + hex.uppercased(), "v0=" + mixed] {
            let again = try post(runs, timestamp: stamp, signature: variant)
            XCTAssertEqual(again.status, 401, "replayed as \(variant)")
            XCTAssertTrue(again.text.contains("replayed"), again.text)
        }
        XCTAssertEqual(try post(run, contentType: "application/json").status, 415, "wrong content type")
        XCTAssertEqual(try post(run + "&padding=" + String(repeating: "x", count: 3000)).status, 413, "oversized")
        let stranger = try post(form("run app-intents", user: "U9EVE", name: "eve"))
        XCTAssertEqual(stranger.status, 403, "unauthorized user")
        XCTAssertTrue(stranger.text.contains("eve (U9EVE) in channel C1 is not named"), stranger.text)
        let bob = try post(form("run app-intents", user: "U2BOB", name: "bob"))
        XCTAssertEqual(bob.status, 403, "a user who may not run the pipeline")
        XCTAssertTrue(bob.text.contains("bob (U2BOB) may not run app-intents"), bob.text)
        // Five a minute per user: bob has used one; four more pass, the next is refused.
        for _ in 0..<4 { XCTAssertEqual(try post(form("runs", user: "U2BOB", name: "bob")).status, 200) }
        XCTAssertEqual(try post(form("runs", user: "U2BOB", name: "bob")).status, 429, "over the rate")
        // A client that sends its body slowly is cut off at the 2 s limit, with no answer.
        let slow = try post(run + "&padding=" + String(repeating: "y", count: 1200), extra: ["--limit-rate", "200"])
        XCTAssertEqual(slow.status, 0, "cut off: \(slow)")

        XCTAssertEqual(try storedRuns().count, 0, "no run was queued")
        XCTAssertTrue(project.runFolders().isEmpty)
        Thread.sleep(forTimeInterval: 0.3)
        let entries = try audit()
        let statuses = entries.compactMap { $0["status"] as? Int }
        for status in [401, 415, 413, 403, 429] { XCTAssertTrue(statuses.contains(status), "\(status) in \(statuses)") }
        XCTAssertTrue(
            entries.contains { ($0["reason"] as? String ?? "").contains("cut off") && $0["status"] == nil },
            "the slow client is in the audit log: \(entries)")
        XCTAssertEqual(
            entries.filter { $0["verified"] as? Bool == true && $0["decision"] as? String == "refused" }.count, 3)
        XCTAssertTrue(receiver.texts.allSatisfy { $0.hasPrefix("refused:") }, "only refusals were posted")
    }

    func testInjectionStringsInEveryArgumentReachTheHostAsPlainData() throws {
        try startServer()
        let marker = "/tmp/pipe-chatops-injected-\(UUID().uuidString)"
        let hostile = "$(touch \(marker)-a)`touch \(marker)-b`;touch \(marker)-c'\"|&<>"
        let answer = try post(
            form(#"run app-intents ref=main scheme="\#(hostile.replacingOccurrences(of: "\"", with: "\\\""))""#))
        XCTAssertEqual(answer.status, 200, answer.body)
        XCTAssertTrue(answer.text.hasPrefix("queued as run"), answer.text)
        waitUntil("the run ended", timeout: 60) { receiver.texts.contains { $0.contains("finished") } }
        let record = try project.lastRecord()
        let request = try XCTUnwrap(record["request"] as? [String: Any])
        XCTAssertEqual((request["parameters"] as? [String: String])?["scheme"], hostile, "the value arrived unchanged")
        let logic = try XCTUnwrap(layer("logic", in: record))
        XCTAssertEqual(logic["outcome"] as? String, "host-config", "xcodebuild was asked for that scheme: \(logic)")
        XCTAssertTrue("\(logic["evidence"] ?? "")".contains("touch \(marker)-a"), "\(logic)")

        // A hostile ref, run id and layer never reach a shell either.
        XCTAssertEqual(try post(form("run app-intents 'ref=main;touch \(marker)-d'")).status, 200)
        XCTAssertEqual(try post(form("status '$(touch \(marker)-e)'")).status, 200)
        XCTAssertEqual(try post(form("signoff last '`touch \(marker)-f`' pass")).status, 403)
        waitUntil("the run with the hostile ref ended", timeout: 60) {
            receiver.texts.filter { $0.contains("finished") || $0.contains("did not run") }.count >= 2
        }
        for suffix in ["a", "b", "c", "d", "e", "f"] {
            XCTAssertFalse(
                FileManager.default.fileExists(atPath: "\(marker)-\(suffix)"), "\(marker)-\(suffix) was created")
        }
    }

    func testInjectionCorpusInChatFieldsIsAnsweredAndPostedAsPlainText() throws {
        try startServer()
        try? FileManager.default.removeItem(atPath: InjectionCorpus.witnessFile)
        var answers: [String] = []
        for (index, text) in (InjectionCorpus.strings + [InjectionCorpus.withNUL]).enumerated() {
            // Strangers, each once: the answer names who asked and what, from fields the request chose.
            let body = form("status \(text)", user: "U9X\(index)", name: text)
            guard body.utf8.count <= 2048 else { continue }  // over the body limit: 413, as tested above
            let answer = try post(body)
            // Text that is not one command is answered with help (200); the rest reaches authorization.
            XCTAssertTrue([200, 403].contains(answer.status), "\(text.debugDescription): \(answer.body.prefix(300))")
            if answer.status == 403 { XCTAssertTrue(answer.text.contains("is not named"), answer.text) }
            answers.append(answer.text)
        }
        let refused = answers.filter { $0.contains("is not named") }.count
        XCTAssertGreaterThan(refused, 20)
        waitUntil("the refusals were posted", timeout: 20) { receiver.texts.count >= refused }
        for text in answers + receiver.texts {
            // Slack reads every < > as markup; the answers and posts escape them all, the help's included.
            XCTAssertFalse(text.contains("<") || text.contains(">"), "markup in \(text.prefix(300))")
            XCTAssertFalse(text.unicodeScalars.contains { $0.value == 0x1B || $0.value == 0x07 }, text)
        }
        XCTAssertFalse(FileManager.default.fileExists(atPath: InjectionCorpus.witnessFile), "a command ran")
        XCTAssertEqual(try storedRuns().count, 0)
    }

    func testBehindAProxyOnAUnixSocketTheForwardedAddressIsBelievedAndTheChatServed() throws {
        let socket = "/tmp/pipe-chatops-\(UUID().uuidString.prefix(8)).sock"
        try startServer(unixSocket: socket)
        let forwarded = ["-H", "X-Forwarded-For: 203.0.113.7, 198.51.100.4"]
        XCTAssertEqual(try post(form("runs"), extra: forwarded).status, 200, "a signed request through the socket")
        XCTAssertEqual(
            try post(form("runs"), signature: "v0=" + String(repeating: "ef", count: 32), extra: forwarded).status, 401)
        Thread.sleep(forTimeInterval: 0.3)
        let entries = try audit()
        XCTAssertEqual(entries.compactMap { $0["remoteAddress"] as? String }, ["198.51.100.4", "198.51.100.4"])
        XCTAssertEqual(entries.compactMap { $0["proxy"] as? String }, ["unix", "unix"])
        let attributes = try FileManager.default.attributesOfItem(atPath: socket)
        XCTAssertEqual((attributes[.posixPermissions] as? NSNumber)?.intValue, 0o660, "only Pipe's user and group")

        // With a socket to listen on, --port is a mistake, not a second listener.
        let result = try project.pipe(["chatops", "serve", "--config", ".pipe/chatops.yml", "--port", "0"])
        XCTAssertEqual(result.exitCode, 2, result.combined)
        XCTAssertTrue(result.combined.contains("--port is not used"), result.combined)
    }
}
