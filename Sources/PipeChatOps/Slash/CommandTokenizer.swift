/// Splits a slash command's text into words as a person expects: spaces separate words, `"…"` and `'…'` keep
/// spaces inside one (also in the middle of a word: `note="found it"`), and the curly quotes chat apps put in
/// place of straight ones count as quotes.
public enum CommandTokenizer {
    /// Why a text cannot be split.
    public struct Failure: Error, Sendable, Equatable, CustomStringConvertible {
        public var message: String
        public var description: String { message }
    }

    /// The words of `text`. Inside `"…"`, `\"` and `\\` stand for `"` and `\`; inside `'…'` everything is literal.
    public static func words(_ text: String) throws(Failure) -> [String] {
        var words: [String] = []
        var current = ""
        var inWord = false
        var quote: Character?
        var quoteStart = 0
        let characters = Array(normalizedQuotes(text))
        var index = 0
        while index < characters.count {
            let character = characters[index]
            if let open = quote {
                if character == open {
                    quote = nil
                } else if open == "\"", character == "\\", index + 1 < characters.count,
                    characters[index + 1] == "\"" || characters[index + 1] == "\\"
                {
                    current.append(characters[index + 1])
                    index += 1
                } else {
                    current.append(character)
                }
            } else if character == "\"" || character == "'" {
                quote = character
                quoteStart = index
                inWord = true
            } else if character.isWhitespace {
                if inWord { words.append(current) }
                current = ""
                inWord = false
            } else {
                current.append(character)
                inWord = true
            }
            index += 1
        }
        if let open = quote {
            let before = String(characters[max(0, quoteStart - 12)..<quoteStart])
            throw Failure(
                message: "the quote \(open) after `\(before)` is never closed; close it, or put the value in the "
                    + "other kind of quotes")
        }
        if inWord { words.append(current) }
        return words
    }

    /// Curly quotes (what phones and macOS type for `"` and `'`) as straight ones.
    static func normalizedQuotes(_ text: String) -> String {
        var result = ""
        result.reserveCapacity(text.count)
        for character in text {
            switch character {
            case "\u{201C}", "\u{201D}", "\u{201E}", "\u{00AB}", "\u{00BB}": result.append("\"")
            case "\u{2018}", "\u{2019}", "\u{201A}": result.append("'")
            default: result.append(character)
            }
        }
        return result
    }
}
