import Foundation
import PipeBasics
import PipeTestSupport

/// Slash commands as Slack sends them, for end-to-end tests: a form body, its signature, and a POST with curl.
struct SlackSlashCommand {
    /// The signing secret the endpoint was given.
    var secret: String
    /// The `response_url` each command carries.
    var responseURL: String

    /// What the endpoint answered, and how long it took.
    struct Answer {
        var status: Int
        var body: String
        var seconds: Double
        var text: String {
            let object = try? JSONSerialization.jsonObject(with: Data(body.utf8)) as? [String: Any]
            return object?["text"] as? String ?? body
        }
    }

    /// A form body as Slack sends a slash command.
    func form(_ text: String, user: String = "U1ALICE", name: String = "alice") -> String {
        let fields = [
            ("token", "ignored-by-slack-signing"), ("team_id", "T1"), ("channel_id", "C1"), ("user_id", user),
            ("user_name", name), ("command", "/pipe"), ("text", text), ("response_url", responseURL),
            // Slack sends a fresh trigger_id with every command, so two identical commands are two bodies.
            ("trigger_id", UUID().uuidString),
        ]
        var allowed = CharacterSet.alphanumerics
        allowed.insert(charactersIn: "-._~")
        return fields.map { "\($0.0)=\($0.1.addingPercentEncoding(withAllowedCharacters: allowed) ?? "")" }
            .joined(separator: "&")
    }

    /// Slack's signature of `body` at `timestamp`: `v0=` and lower-case hex.
    func signature(_ body: String, at timestamp: Date) -> String {
        let stamp = String(Int(timestamp.timeIntervalSince1970))
        let code = HMACDigest.authenticationCode(
            .sha256, key: Array(secret.utf8), message: Array("v0:\(stamp):\(body)".utf8))
        return "v0=" + code.map { String(format: "%02x", $0) }.joined()
    }

    /// POSTs `body` to `endpoint` with curl (`route`: how to reach it, e.g. its Unix socket), signed at
    /// `timestamp` unless `signature` is given.
    func post(
        _ body: String, to endpoint: String, route: [String] = [], timestamp: Date = Date(), signature: String? = nil,
        contentType: String? = nil, extra: [String] = []
    ) throws -> Answer {
        let stamp = String(Int(timestamp.timeIntervalSince1970))
        let signed = signature ?? self.signature(body, at: timestamp)
        var arguments = [
            "-s", "-o", "-", "-w", "\n%{http_code} %{time_total}", "--max-time", "15",
            "-H", "X-Slack-Request-Timestamp: \(stamp)", "-H", "X-Slack-Signature: \(signed)", "--data-binary", body,
        ]
        if let contentType { arguments += ["-H", "Content-Type: \(contentType)"] }
        let result = try CommandRunner.run(
            URL(fileURLWithPath: "/usr/bin/curl"), arguments + route + extra + [endpoint])
        let lines = result.stdout.split(separator: "\n", omittingEmptySubsequences: false)
        let parts = (lines.last.map(String.init) ?? "").split(separator: " ")
        return Answer(
            status: parts.first.flatMap { Int($0) } ?? -1, body: lines.dropLast().joined(separator: "\n"),
            seconds: parts.count > 1 ? Double(parts[1]) ?? -1 : -1)
    }
}
