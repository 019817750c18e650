import Foundation

/// Replaces every secret value in text with `[secret NAME]`, so no log, event, record or report shows it: as it is,
/// and in every form a JSON encoder writes it (quotes and backslashes escaped, `/` as `\/` as Apple's and Swift's
/// encoders write it, control characters and non-ASCII as `\u` escapes in either case).
public struct SecretRedactor: Sendable {
    private let replacements: [(value: String, mask: String)]

    public init(_ secrets: SecretValues) {
        // An empty value would match everywhere; `SecretValues.resolve` refuses them, this guards other callers.
        var forms: [(value: String, mask: String)] = []
        for (name, value) in secrets.values where !value.isEmpty {
            for form in Self.forms(of: value) { forms.append((form, Self.mask(for: name))) }
        }
        // Longest first: a value that contains another is masked whole.
        replacements = forms.sorted { ($0.value.utf8.count, $0.value) > ($1.value.utf8.count, $1.value) }
    }

    /// The redactor that changes nothing (no secrets).
    public static let none = SecretRedactor(SecretValues())

    public var isEmpty: Bool { replacements.isEmpty }

    /// What a secret is replaced with.
    public static func mask(for name: String) -> String { "[secret \(name)]" }

    /// The longest form of a value, in bytes: a stream must hold back one byte less than this to catch a value
    /// split across chunks.
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

    /// `text` encoded as JSON, with every secret replaced: the same as `redact`, which knows every JSON form.
    public func redactJSON(_ text: String) -> String { redact(text) }

    /// The value as it is, and as JSON encoders may write it inside a string.
    static func forms(of value: String) -> Set<String> {
        var forms: Set<String> = [value]
        for slash in [false, true] {
            for unicode in [JSONUnicode.kept, .escapedLowercase, .escapedUppercase] {
                forms.insert(jsonEscaped(value, escapingSlash: slash, unicode: unicode))
            }
        }
        return forms
    }

    enum JSONUnicode {
        case kept
        case escapedLowercase
        case escapedUppercase
    }

    private static func jsonEscaped(_ text: String, escapingSlash: Bool, unicode: JSONUnicode) -> String {
        func hex(_ unit: UInt16) -> String {
            let digits = String(unit, radix: 16, uppercase: unicode == .escapedUppercase)
            return "\\u" + String(repeating: "0", count: 4 - digits.count) + digits
        }
        var escaped = ""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\"": escaped += "\\\""
            case "\\": escaped += "\\\\"
            case "/" where escapingSlash: escaped += "\\/"
            case "\n": escaped += "\\n"
            case "\r": escaped += "\\r"
            case "\t": escaped += "\\t"
            case let control where control.value < 0x20:
                escaped += hex(UInt16(control.value))
            case let wide where wide.value > 0x7E && unicode != .kept:
                escaped += String(wide).utf16.map(hex).joined()
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
