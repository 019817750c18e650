import Foundation

/// Takes secrets out of text before anyone sees it: every renderer and report writer passes each string it shows
/// through one, so that a secret that reached a log line, an evidence line or a test message is never printed.
///
/// Pipe has no secrets yet (no value in a pipeline is marked secret), so the default redactor changes nothing;
/// this is the seam where they will be applied. Longer secrets are replaced first, so one that contains another is
/// never half shown.
public struct Redactor: Sendable {
    /// What a secret is replaced with.
    public static let mask = "••••••"

    /// The redactor that changes nothing.
    public static let none = Redactor(secrets: [])

    private let secrets: [String]

    /// - Parameter secrets: values to hide; empty strings are ignored (they would match everywhere).
    public init(secrets: [String]) {
        self.secrets = Set(secrets.filter { !$0.isEmpty }).sorted { ($0.count, $0) > ($1.count, $1) }
    }

    /// Whether there is anything to hide.
    public var isEmpty: Bool { secrets.isEmpty }

    /// `text` with every secret replaced by `mask`.
    public func redact(_ text: String) -> String {
        guard !secrets.isEmpty else { return text }
        var result = text
        for secret in secrets where result.contains(secret) {
            result = result.replacingOccurrences(of: secret, with: Self.mask)
        }
        return result
    }

    /// `text` (already encoded as JSON) with every secret replaced, as it appears once JSON-escaped too (a secret
    /// with a quote, a backslash or a slash is written differently inside a JSON string).
    public func redactJSON(_ text: String) -> String {
        guard !secrets.isEmpty else { return text }
        var result = redact(text)
        for secret in secrets {
            let escaped = Self.jsonEscaped(secret)
            if escaped != secret, result.contains(escaped) {
                result = result.replacingOccurrences(of: escaped, with: Self.mask)
            }
        }
        return result
    }

    private static func jsonEscaped(_ text: String) -> String {
        var escaped = ""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\"": escaped += "\\\""
            case "\\": escaped += "\\\\"
            case "\n": escaped += "\\n"
            case "\r": escaped += "\\r"
            case "\t": escaped += "\\t"
            case let control where control.value < 0x20: escaped += String(format: "\\u%04x", control.value)
            default: escaped.unicodeScalars.append(scalar)
            }
        }
        return escaped
    }
}
