/// Values from runs, hosts, tests and requests made safe to put in a chat message: Slack reads `<…>` as links and
/// mentions (`<!channel>`, `<https://x|text>`) and `&` as an entity, a backtick or line break inside a code span
/// would end it early, and control characters (terminal escapes) are shown, not passed on.
public enum ChatText {
    /// One line: `&`, `<` and `>` escaped as Slack requires (Mattermost's Markdown shows the entities as the
    /// characters), line breaks as spaces, other control characters as `\u{…}`.
    public static func plain(_ text: String) -> String { escaped(text, keepingLines: false) }

    /// Text of several lines (a Markdown summary, a log tail), escaped as `plain` but keeping its line breaks.
    public static func block(_ text: String) -> String { escaped(text, keepingLines: true) }

    /// A value in a code span.
    public static func code(_ text: String) -> String {
        "`" + plain(text).replacingOccurrences(of: "`", with: "'") + "`"
    }

    private static func escaped(_ text: String, keepingLines: Bool) -> String {
        var result = ""
        result.reserveCapacity(text.utf8.count)
        for scalar in text.unicodeScalars {
            switch scalar {
            case "&": result += "&amp;"
            case "<": result += "&lt;"
            case ">": result += "&gt;"
            case "\n": result += keepingLines ? "\n" : " "
            case "\r": result += keepingLines ? "" : " "
            case "\t": result += " "
            default:
                if scalar.value < 0x20 || (0x7F...0x9F).contains(scalar.value) || isBidiControl(scalar) {
                    result += "\\u{" + String(scalar.value, radix: 16, uppercase: true) + "}"
                } else {
                    result.unicodeScalars.append(scalar)
                }
            }
        }
        return result
    }

    /// Characters that reorder the text around them (a file name can be made to read backwards).
    private static func isBidiControl(_ scalar: Unicode.Scalar) -> Bool {
        (0x202A...0x202E).contains(scalar.value) || (0x2066...0x2069).contains(scalar.value)
            || scalar.value == 0x200E || scalar.value == 0x200F
    }
}
