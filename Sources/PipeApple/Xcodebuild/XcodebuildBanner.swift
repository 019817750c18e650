/// The final `** <ACTION> <RESULT> **` line of xcodebuild, optionally with ` [<seconds> sec]`.
///
/// Matches exactly what `^\*\* (.+?) (SUCCEEDED|FAILED|INTERRUPTED) \*\*(?: \[\d+\.\d+ sec\])?$` matches
/// (`apple-formats.md` 3.6). A killed xcodebuild prints none: silence is never success.
public struct XcodebuildBanner: Equatable, Sendable {
    /// How the action ended.
    public enum Result: String, Sendable {
        case succeeded = "SUCCEEDED"
        case failed = "FAILED"
        case interrupted = "INTERRUPTED"
    }

    /// `TEST`, `TEST EXECUTE`, `TEST BUILD`, `BUILD`, `ARCHIVE`, …
    public let action: String
    public let result: Result
    public let seconds: Double?
    /// The line as printed, for evidence.
    public let line: String

    /// Reads a banner line; `nil` for any other line (trailing spaces and a CR are tolerated).
    public static func parse(_ line: String) -> XcodebuildBanner? {
        var text = Substring(line)
        while let last = text.last, last == " " || last == "\r" { text = text.dropLast() }
        guard text.hasPrefix("** ") else { return nil }
        let printed = String(text)
        var seconds: Double?
        if text.hasSuffix(" sec]"), let open = text.range(of: " [", options: .backwards) {
            let number = text[open.upperBound..<text.index(text.endIndex, offsetBy: -5)]
            guard Self.isDecimal(number), let value = Double(number) else { return nil }
            seconds = value
            text = text[..<open.lowerBound]
        }
        guard text.hasSuffix(" **"), text.count > 6 else { return nil }
        let inner = text.dropFirst(3).dropLast(3)
        guard let space = inner.lastIndex(of: " ") else { return nil }
        let action = inner[..<space]
        guard !action.isEmpty, let result = Result(rawValue: String(inner[inner.index(after: space)...])) else {
            return nil
        }
        return XcodebuildBanner(action: String(action), result: result, seconds: seconds, line: printed)
    }

    private static func isDecimal(_ text: Substring) -> Bool {
        let parts = text.split(separator: ".", omittingEmptySubsequences: false)
        return parts.count == 2 && parts.allSatisfy { !$0.isEmpty && $0.allSatisfy { $0.isASCII && $0.isNumber } }
    }
}
