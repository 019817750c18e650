import Foundation

/// Replaces every secret value in text with `[secret NAME]`, so no log, event, record or report shows it.
public struct SecretRedactor: Sendable {
    private let replacements: [(value: String, mask: String)]

    public init(_ secrets: SecretValues) {
        // Longest first: a value that contains another is masked whole.
        // An empty value would match everywhere; `SecretValues.resolve` refuses them, this guards other callers.
        replacements = secrets.values.filter { !$0.value.isEmpty }.map {
            (value: $0.value, mask: Self.mask(for: $0.key))
        }
        .sorted { $0.value.count > $1.value.count }
    }

    /// The redactor that changes nothing (no secrets).
    public static let none = SecretRedactor(SecretValues())

    public var isEmpty: Bool { replacements.isEmpty }

    /// What a secret is replaced with.
    public static func mask(for name: String) -> String { "[secret \(name)]" }

    /// The longest value, in bytes: a stream must hold back one byte less than this to catch a value split
    /// across chunks.
    public var longestValueBytes: Int { replacements.map(\.value.utf8.count).max() ?? 0 }

    public func redact(_ text: String) -> String {
        guard !replacements.isEmpty else { return text }
        var result = text
        for replacement in replacements where result.contains(replacement.value) {
            result = result.replacingOccurrences(of: replacement.value, with: replacement.mask)
        }
        return result
    }

    public func redact(_ lines: [String]) -> [String] { lines.map(redact) }

    /// `text` (already encoded as JSON) with every secret replaced, also as it appears JSON-escaped (a secret with
    /// a quote, a backslash or a control character is written differently inside a JSON string).
    public func redactJSON(_ text: String) -> String {
        guard !replacements.isEmpty else { return text }
        var result = redact(text)
        for replacement in replacements {
            let escaped = Self.jsonEscaped(replacement.value)
            if escaped != replacement.value, result.contains(escaped) {
                result = result.replacingOccurrences(of: escaped, with: replacement.mask)
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

    public func redact(_ data: Data) -> Data {
        guard !replacements.isEmpty else { return data }
        return Data(redact(String(decoding: data, as: UTF8.self)).utf8)
    }

    public func redact(_ test: TestCaseResult) -> TestCaseResult {
        var test = test
        test.failureMessage = test.failureMessage.map(redact)
        test.identifier = redact(test.identifier)
        return test
    }
}

/// Redacts a byte stream that arrives in chunks: text is passed on only up to the last line break, so a secret
/// split across two chunks is still masked (a line longer than `maximumHeldBytes` is passed on anyway).
public final class StreamRedactor {
    private let redactor: SecretRedactor
    private var pending = Data()
    private let maximumHeldBytes = 1 << 20

    public init(_ redactor: SecretRedactor) { self.redactor = redactor }

    /// The part of `chunk` (with what was held back) that can be passed on now, redacted.
    public func feed(_ chunk: Data) -> Data {
        guard !redactor.isEmpty else { return chunk }
        pending.append(chunk)
        guard let lastBreak = pending.lastIndex(of: UInt8(ascii: "\n")) else {
            return pending.count > maximumHeldBytes ? flush() : Data()
        }
        let ready = pending[pending.startIndex...lastBreak]
        pending = Data(pending[(lastBreak + 1)...])
        return redactor.redact(Data(ready))
    }

    /// Whatever is still held back, redacted (at the end of the stream).
    public func flush() -> Data {
        defer { pending = Data() }
        return redactor.redact(pending)
    }
}
