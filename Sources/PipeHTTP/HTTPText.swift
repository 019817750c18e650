/// How a server or client message repeats text that a sender chose (a path, a method, a URL): bounded, with
/// anything unprintable replaced, so it cannot move a terminal's cursor or split a log line.
enum HTTPText {
    static func printable(_ text: String, limit: Int = 80) -> String {
        let kept = text.unicodeScalars.prefix(limit).map { $0.value >= 0x20 && $0.value != 0x7F ? Character($0) : "?" }
        return String(kept) + (text.unicodeScalars.count > limit ? "…" : "")
    }

    static func quoted(_ text: String) -> String { "'" + printable(text) + "'" }
}
