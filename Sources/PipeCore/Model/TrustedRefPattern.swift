/// A protected ref of the project file's `trusted-refs:`: `main`, `release/*`, `refs/tags/*`, `refs/tags/v**`.
///
/// A pattern that starts with `refs/` matches full ref names; any other names branches (`refs/heads/<pattern>`).
/// `*`, `**` and `?` match as in a watch's branches (`BranchPattern`).
public struct TrustedRefPattern: Sendable, Equatable, CustomStringConvertible {
    /// As written in the project file.
    public let text: String
    private let fullRefPattern: BranchPattern

    public init(_ text: String) {
        self.text = text
        fullRefPattern = BranchPattern(text.hasPrefix("refs/") ? text : "refs/heads/" + text)
    }

    public var description: String { text }

    /// Whether the full ref name `ref` (`refs/heads/main`, `refs/tags/v1.0`) is protected by this pattern.
    public func matches(fullRef ref: String) -> Bool { fullRefPattern.matches(ref) }

    /// Why `text` cannot be a pattern, or `nil` when it can.
    public static func problem(with text: String) -> String? {
        if text.isEmpty { return "an empty pattern protects nothing" }
        if text.hasPrefix("/") || text.hasSuffix("/") || text.contains("//") {
            return "'\(text)' is not a ref name: no leading, trailing or doubled '/'"
        }
        if text.split(separator: "/").contains(where: { $0 == ".." || $0 == "." }) {
            return "'\(text)' is not a ref name: no '.' or '..' components"
        }
        if text.unicodeScalars.contains(where: { $0.value < 0x20 || $0 == " " || $0 == "\u{7F}" || $0 == "\\" }) {
            return "'\(text)' is not a ref name: no spaces, control characters or '\\'"
        }
        return nil
    }
}
