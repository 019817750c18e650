/// A file's text split in lines the way libyaml counts them, for snippets and positions inside scalars.
struct SourceText: Sendable {
    let lines: [[Unicode.Scalar]]

    init(_ text: String) {
        var lines: [[Unicode.Scalar]] = []
        var current: [Unicode.Scalar] = []
        var scalars = Array(text.unicodeScalars)
        if scalars.first == "\u{FEFF}" { scalars.removeFirst() }
        var index = 0
        while index < scalars.count {
            let scalar = scalars[index]
            switch scalar {
            case "\r":
                lines.append(current)
                current = []
                if index + 1 < scalars.count, scalars[index + 1] == "\n" { index += 1 }
            case "\n", "\u{85}", "\u{2028}", "\u{2029}":
                lines.append(current)
                current = []
            default:
                current.append(scalar)
            }
            index += 1
        }
        lines.append(current)
        self.lines = lines
    }

    /// The text of a 1-based line, or `nil` past the end.
    func line(_ number: Int) -> String? {
        guard number >= 1, number <= lines.count else { return nil }
        var text = ""
        text.unicodeScalars.append(contentsOf: lines[number - 1])
        return text
    }

    /// The source line and a caret under the column; tabs are copied so the caret lines up in a terminal.
    func snippet(at mark: SourceMark) -> [String] {
        guard let text = line(mark.line) else { return [] }
        let scalars = lines[mark.line - 1]
        var caret = ""
        for offset in 0..<max(0, mark.column - 1) {
            caret += offset < scalars.count && scalars[offset] == "\t" ? "\t" : " "
        }
        return [text, caret + "^"]
    }

    /// Where each `${` of a scalar written between `start` and `end` begins, skipping the `$${` escape, in order.
    ///
    /// Scanning the source rather than the scalar's value gives exact positions for plain, quoted and block
    /// scalars alike: YAML escapes and folding never create or remove a `${`.
    func interpolationMarks(from start: SourceMark, to end: SourceMark) -> [SourceMark] {
        var positioned: [(scalar: Unicode.Scalar, mark: SourceMark)] = []
        guard start.line >= 1 else { return [] }
        for lineNumber in start.line...min(max(end.line, start.line), lines.count) {
            let scalars = lines[lineNumber - 1]
            let first = lineNumber == start.line ? start.column - 1 : 0
            let last = lineNumber == end.line ? min(end.column - 1, scalars.count) : scalars.count
            if first < last {
                for offset in first..<last {
                    positioned.append((scalars[offset], SourceMark(line: lineNumber, column: offset + 1)))
                }
            }
            positioned.append(("\n", SourceMark(line: lineNumber, column: scalars.count + 1)))
        }
        var marks: [SourceMark] = []
        var index = 0
        while index < positioned.count {
            let next = index + 1 < positioned.count ? positioned[index + 1].scalar : nil
            let afterNext = index + 2 < positioned.count ? positioned[index + 2].scalar : nil
            if positioned[index].scalar == "$", next == "$", afterNext == "{" {
                index += 3
            } else if positioned[index].scalar == "$", next == "{" {
                marks.append(positioned[index].mark)
                index += 2
            } else {
                index += 1
            }
        }
        return marks
    }

    /// The position of a byte offset in UTF-8 input (libyaml reports decoding errors by offset, not by mark).
    static func mark(ofByteOffset offset: Int, in bytes: [UInt8]) -> SourceMark {
        var line = 1
        var column = 1
        var index = 0
        while index < min(offset, bytes.count) {
            let byte = bytes[index]
            if byte == UInt8(ascii: "\n")
                || (byte == UInt8(ascii: "\r") && bytes[safe: index + 1] != UInt8(ascii: "\n"))
            {
                line += 1
                column = 1
            } else if byte & 0xC0 != 0x80, byte != UInt8(ascii: "\r") {
                column += 1
            }
            index += 1
        }
        return SourceMark(line: line, column: column)
    }
}

extension Array {
    fileprivate subscript(safe index: Int) -> Element? {
        indices.contains(index) ? self[index] : nil
    }
}
