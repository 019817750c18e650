import Foundation

/// Hostile text (test names, messages, file paths, reasons) inside a comment or check run summary, so that it
/// stays text: it cannot end the structure around it, open HTML or an HTML comment, make a heading or a table
/// cell, or mention (and so notify) anyone.
///
/// Names go in code spans and messages in fenced blocks, whose only special character is the backtick, so the
/// fence is always longer than any backtick run inside; words outside code have every ASCII punctuation mark
/// backslash-escaped (CommonMark's escapes, which GitHub, GitLab and Gitea all follow). Mentions are found in
/// rendered text by some forges, where an escape no longer shows, so an `@` is followed by a word joiner (U+2060),
/// which no mention pattern matches across and which does not show.
public enum ForgeMarkdown {
    /// An inline code span on one line.
    public static func code(_ text: String) -> String {
        let flat = unmentioned(ForgeTextCut.oneLine(text))
        let fence = String(repeating: "`", count: longestBacktickRun(flat) + 1)
        let padded = flat.hasPrefix("`") || flat.hasSuffix("`") || flat.isEmpty ? " \(flat) " : flat
        return fence + padded + fence
    }

    /// A fenced code block, every line indented by `indent` spaces (to sit inside a list item).
    public static func block(_ text: String, indent: Int) -> String {
        let text = unmentioned(visible(text))
        let padding = String(repeating: " ", count: indent)
        let fence = String(repeating: "`", count: max(3, longestBacktickRun(text) + 1))
        let lines = text.split(omittingEmptySubsequences: false, whereSeparator: \.isNewline).map { padding + $0 }
        return ([padding + fence] + lines + [padding + fence]).joined(separator: "\n") + "\n"
    }

    /// Plain words on one line, every ASCII punctuation mark escaped.
    public static func plain(_ text: String) -> String {
        var result = ""
        for character in unmentioned(ForgeTextCut.oneLine(text)) {
            if character.isASCII, character.isPunctuation || character.isSymbol { result.append("\\") }
            result.append(character)
        }
        return result
    }

    /// `@` followed by a word joiner, so `@team` cannot notify a team however it is rendered.
    static func unmentioned(_ text: String) -> String {
        text.contains("@") ? text.replacingOccurrences(of: "@", with: "@\u{2060}") : text
    }

    /// Control characters other than line breaks and tabs become U+FFFD (they would show as nothing, or do
    /// something, where the text is read); bidirectional overrides are dropped.
    static func visible(_ text: String) -> String {
        var result = String.UnicodeScalarView()
        for scalar in text.unicodeScalars {
            switch scalar.value {
            case 0x202A...0x202E, 0x2066...0x2069: continue
            case 0x0A, 0x09: result.append(scalar)
            case 0x0D: continue
            case 0x00...0x1F, 0x7F...0x9F: result.append("\u{FFFD}")
            default: result.append(scalar)
            }
        }
        return String(result)
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
