import Foundation
import PipeCore

/// Reads the signing secret (or Mattermost token) from where the config says; the value is never logged, and
/// errors name only where it was looked for.
public enum ChatOpsSecret {
    /// - Parameter baseDirectory: where a relative `file:` path starts (the config file's folder).
    public static func read(_ source: SecretSource, environment: [String: String], baseDirectory: URL) throws -> String
    {
        let value: String
        switch source {
        case .environment(let name):
            guard let text = environment[name] else {
                throw ChatOpsError(
                    "chatops.secret: the environment variable \(name) is not set; set it to the chat's signing secret "
                        + "(Slack: Basic Information → Signing Secret)")
            }
            value = text
        case .file(let path):
            let url =
                path.hasPrefix("/") ? URL(fileURLWithPath: path) : baseDirectory.appendingPathComponent(path)
            guard let text = try? String(contentsOf: url, encoding: .utf8) else {
                throw ChatOpsError(
                    "chatops.secret: cannot read the file \(url.path); check the path and its permissions")
            }
            value = text.hasSuffix("\n") ? String(text.dropLast()) : text
        case .binaryFile:
            throw ChatOpsError("chatops.secret: the signing secret is text, not a binary file")
        }
        guard !value.trimmingCharacters(in: .whitespaces).isEmpty else {
            throw ChatOpsError("chatops.secret: the \(source.description) is empty")
        }
        guard !value.contains("\n"), !value.contains("\r") else {
            throw ChatOpsError("chatops.secret: the \(source.description) holds a line break; the secret is one line")
        }
        return value
    }
}
