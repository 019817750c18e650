import Foundation

/// A JSON value that keeps its keys in the order given, printed the way Apple's command-line tools print JSON.
///
/// Apple's tools use Foundation's pretty printer: two-space indent, `"key" : value` (a space on both sides of the
/// colon), and an empty array or object printed over three lines with an empty line inside (`[\n\n  ]`).
indirect enum AppleJSON: Equatable {
    case object([Member])
    case array([AppleJSON])
    case string(String)
    case int(Int)
    case double(Double)
    case bool(Bool)

    /// One key and its value in an object.
    struct Member: Equatable {
        let key: String
        let value: AppleJSON

        init(_ key: String, _ value: AppleJSON) {
            self.key = key
            self.value = value
        }
    }

    /// Printing choices that differ between Apple's tools.
    struct Style {
        /// `xcresulttool`'s new commands sort keys; `simctl` prints them in its own order.
        var sortsKeys = false
        /// Some `simctl` builds escape `/` as `\/`; both forms are seen from real Macs.
        var escapesSlashes = false
        /// `xcresulttool … --compact` prints one line.
        var compact = false
    }

    /// The document as the tool prints it, with a final newline.
    func rendered(_ style: Style = Style()) -> String {
        var text = ""
        render(into: &text, indent: 0, style: style)
        return text + "\n"
    }

    private func render(into text: inout String, indent: Int, style: Style) {
        switch self {
        case .string(let value): text += AppleJSON.quoted(value, escapesSlashes: style.escapesSlashes)
        case .int(let value): text += String(value)
        case .double(let value): text += AppleJSON.number(value)
        case .bool(let value): text += value ? "true" : "false"
        case .array(let elements):
            renderContainer(
                into: &text, open: "[", close: "]", count: elements.count, indent: indent, style: style
            ) { index, text in
                elements[index].render(into: &text, indent: indent + 1, style: style)
            }
        case .object(let members):
            let ordered = style.sortsKeys ? members.sorted { $0.key < $1.key } : members
            renderContainer(
                into: &text, open: "{", close: "}", count: ordered.count, indent: indent, style: style
            ) { index, text in
                text += AppleJSON.quoted(ordered[index].key, escapesSlashes: style.escapesSlashes)
                text += style.compact ? ":" : " : "
                ordered[index].value.render(into: &text, indent: indent + 1, style: style)
            }
        }
    }

    private func renderContainer(
        into text: inout String, open: String, close: String, count: Int, indent: Int, style: Style,
        element: (Int, inout String) -> Void
    ) {
        if style.compact {
            text += open
            for index in 0..<count {
                if index > 0 { text += "," }
                element(index, &text)
            }
            text += close
            return
        }
        let inner = String(repeating: "  ", count: indent + 1)
        let outer = String(repeating: "  ", count: indent)
        if count == 0 {
            text += open + "\n\n" + outer + close
            return
        }
        text += open + "\n"
        for index in 0..<count {
            text += inner
            element(index, &text)
            text += index == count - 1 ? "\n" : ",\n"
        }
        text += outer + close
    }

    static func quoted(_ value: String, escapesSlashes: Bool) -> String {
        var text = "\""
        for scalar in value.unicodeScalars {
            switch scalar {
            case "\"": text += "\\\""
            case "\\": text += "\\\\"
            case "/": text += escapesSlashes ? "\\/" : "/"
            case "\n": text += "\\n"
            case "\r": text += "\\r"
            case "\t": text += "\\t"
            default:
                if scalar.value < 0x20 {
                    text += String(format: "\\u%04x", scalar.value)
                } else {
                    text.unicodeScalars.append(scalar)
                }
            }
        }
        return text + "\""
    }

    /// Whole numbers without a fraction (`0`, `406`), others in their shortest exact form (`0.0014`).
    static func number(_ value: Double) -> String {
        if value.isFinite, value == value.rounded(), abs(value) < 1e15 { return String(Int(value)) }
        return "\(value)"
    }
}
