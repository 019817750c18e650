/// Values from runs and requests made safe to put in a chat message: Slack reads `<…>` as links and mentions and
/// `&` as an entity, and a backtick or line break inside a code span would end it early.
enum ChatText {
    /// Text with `&`, `<` and `>` escaped as Slack requires (Mattermost's Markdown shows the entities as the
    /// characters).
    static func plain(_ text: String) -> String {
        var result = ""
        result.reserveCapacity(text.count)
        for character in text {
            switch character {
            case "&": result += "&amp;"
            case "<": result += "&lt;"
            case ">": result += "&gt;"
            case "\n", "\r": result += " "
            default: result.append(character)
            }
        }
        return result
    }

    /// A value in a code span.
    static func code(_ text: String) -> String {
        "`" + plain(text).replacingOccurrences(of: "`", with: "'") + "`"
    }
}
