import Foundation
import PipeCore

/// Reads what `forges.yml` points at (tokens, webhook secrets, the app's key) on the coordinator. A value is
/// never printed: errors name the forge, the setting and where it was looked for.
public struct ForgeSecrets: Sendable {
    public var environment: [String: String]
    /// Where a relative `file:` starts.
    public var projectDirectory: URL

    public init(environment: [String: String], projectDirectory: URL) {
        self.environment = environment
        self.projectDirectory = projectDirectory
    }

    /// The value at `source`, its one trailing newline dropped; `setting` names it in errors
    /// (`forges.github.webhook.secret`). A PEM key keeps its line breaks (`multiline`); other values are one line.
    public func read(_ source: SecretSource, setting: String, multiline: Bool = false) throws -> String {
        var value: String
        switch source {
        case .environment(let name):
            guard let text = environment[name] else {
                throw RequestError("\(setting): the environment variable \(name) is not set on this machine")
            }
            value = text
        case .file(let path):
            let url = path.hasPrefix("/") ? URL(fileURLWithPath: path) : projectDirectory.appendingPathComponent(path)
            guard let text = try? String(contentsOf: url, encoding: .utf8) else {
                throw RequestError("\(setting): cannot read the file \(url.path); check the path and its permissions")
            }
            value = text
        case .binaryFile:
            throw RequestError("\(setting): a forge secret is text, not a binary file")
        }
        if value.hasSuffix("\n") { value.removeLast() }
        guard !value.trimmingCharacters(in: .whitespacesAndNewlines).isEmpty else {
            throw RequestError("\(setting): the \(source.description) is empty")
        }
        guard multiline || !value.contains(where: \.isNewline) else {
            throw RequestError("\(setting): the \(source.description) holds a line break; the value is one line")
        }
        return value
    }

    /// The verifier of `forge`'s webhook endpoint, with its secret (and GitLab's signing key) read.
    public func webhookVerifier(
        for forge: ForgeConfig, now: @escaping @Sendable () -> Date = { Date() }
    ) throws -> WebhookVerifier {
        let base = "forges.\(forge.name).webhook"
        let secret = try forge.webhook.secret.map { Array(try read($0, setting: "\(base).secret").utf8) }
        var signingKey: [UInt8]?
        if let source = forge.webhook.signingToken {
            do {
                signingKey = try WebhookVerifier.signingKey(
                    fromToken: try read(source, setting: "\(base).signing-token"))
            } catch let refusal as WebhookRefusal {
                throw RequestError("\(base).signing-token: \(refusal.message)")
            }
        }
        guard secret != nil || signingKey != nil else {
            throw RequestError("\(base): no secret is configured; see docs/forges.md")
        }
        return WebhookVerifier(
            kind: forge.kind, secret: secret, signingKey: signingKey,
            timestampToleranceSeconds: forge.webhook.timestampToleranceSeconds,
            maxBodyBytes: forge.webhook.maxBodyBytes,
            now: now)
    }
}
