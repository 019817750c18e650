/// Escaping for XML 1.0 text and attribute values.
///
/// Characters XML 1.0 cannot hold at all (most C0 controls, lone surrogates cannot occur in Swift strings) become
/// U+FFFD, so a test message with a stray control byte never makes the whole report unreadable.
enum XMLText {
    /// For element content.
    static func content(_ text: String) -> String {
        escape(text, attribute: false)
    }

    /// For a value inside double quotes; line breaks and tabs are kept as character references.
    static func attribute(_ text: String) -> String {
        escape(text, attribute: true)
    }

    private static func escape(_ text: String, attribute: Bool) -> String {
        var result = ""
        result.reserveCapacity(text.utf8.count)
        for scalar in text.unicodeScalars {
            switch scalar {
            case "&": result += "&amp;"
            case "<": result += "&lt;"
            case ">": result += "&gt;"
            case "\"" where attribute: result += "&quot;"
            case "\n" where attribute: result += "&#10;"
            case "\r": result += "&#13;"
            case "\t" where attribute: result += "&#9;"
            case "\n", "\t": result.unicodeScalars.append(scalar)
            case let control where control.value < 0x20 || control.value == 0xFFFE || control.value == 0xFFFF:
                result += "\u{FFFD}"
            default: result.unicodeScalars.append(scalar)
            }
        }
        return result
    }
}
