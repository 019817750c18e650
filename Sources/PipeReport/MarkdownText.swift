/// Putting arbitrary text (test names, messages, paths, evidence) into Markdown without it turning into markup.
///
/// Untrusted text goes into code spans and fenced blocks, whose only special character is the backtick, so it
/// reads the same on GitHub, GitLab and chat tools that show Markdown loosely; the fence is always longer than
/// any run of backticks inside.
enum MarkdownText {
    /// An inline code span on one line.
    static func code(_ text: String) -> String {
        let flat = oneLine(text)
        let fence = String(repeating: "`", count: longestBacktickRun(flat) + 1)
        let padded = flat.hasPrefix("`") || flat.hasSuffix("`") || flat.isEmpty ? " \(flat) " : flat
        return fence + padded + fence
    }

    /// A fenced code block, indented by `indent` spaces (to sit inside a list item).
    static func block(_ text: String, indent: Int) -> String {
        let text = visible(text)
        let padding = String(repeating: " ", count: indent)
        let fence = String(repeating: "`", count: max(3, longestBacktickRun(text) + 1))
        let body = text.split(separator: "\n", omittingEmptySubsequences: false).map { padding + $0 }
        return ([padding + fence] + body + [padding + fence]).joined(separator: "\n") + "\n"
    }

    /// For a table cell: `|` would end the cell (even inside a code span, in GitHub's tables).
    static func cell(_ text: String) -> String {
        oneLine(text).replacingOccurrences(of: "|", with: "\\|")
    }

    /// Plain words (layer names, outcomes) with Markdown's punctuation escaped (`|` is left to `cell`).
    static func plain(_ text: String) -> String {
        var result = ""
        for character in oneLine(text) {
            if "\\`*_[]<>#~!".contains(character) { result.append("\\") }
            result.append(character)
        }
        return result
    }

    private static func oneLine(_ text: String) -> String {
        visible(text).split(omittingEmptySubsequences: true, whereSeparator: \.isNewline).joined(separator: " ")
    }

    /// Control characters other than line breaks and tabs (a terminal bell, an escape sequence) become U+FFFD:
    /// they would show as nothing, or do something, where the message is read.
    private static func visible(_ text: String) -> String {
        guard text.unicodeScalars.contains(where: isHidden) else { return text }
        var result = String.UnicodeScalarView()
        for scalar in text.unicodeScalars { result.append(isHidden(scalar) ? "\u{FFFD}" : scalar) }
        return String(result)
    }

    private static func isHidden(_ scalar: Unicode.Scalar) -> Bool {
        (scalar.value < 0x20 && scalar != "\n" && scalar != "\t" && scalar != "\r") || scalar.value == 0x7F
    }

    private static func longestBacktickRun(_ text: String) -> Int {
        var longest = 0
        var current = 0
        for character in text {
            current = character == "`" ? current + 1 : 0
            longest = max(longest, current)
        }
        return longest
    }
}
