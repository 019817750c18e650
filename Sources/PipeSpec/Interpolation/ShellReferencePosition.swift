/// Where a `${name}` of a shell command stands in the shell's grammar.
///
/// In a shell command `${name}` becomes `"$PIPE_PARAM_name"`, which the shell reads as exactly one word holding the
/// value only where nothing around it changes how it is read: unquoted, as a word or part of one (`${dir}`,
/// `--flag=${x}`, `a${x}b`, `$(cmd ${x})`). Everywhere else the reference would be literal text, split into
/// several words, or evaluated, so it is refused with the fix.
enum ShellReferencePosition: Equatable {
    case word
    case singleQuoted
    case doubleQuoted
    case backquoted
    case arithmetic
    case hereDocument
    case escaped
    case shellExpansion

    /// Why `${name}` cannot stand here and what to write instead; `nil` where it can.
    func refusal(_ name: String) -> String? {
        let reference = "'${\(name)}'"
        switch self {
        case .word:
            return nil
        case .singleQuoted:
            return "\(reference) is inside single quotes, where the shell would not read the value; "
                + "close the quotes before it and reopen them after ('a '${\(name)}' b'): Pipe quotes the value"
        case .doubleQuoted:
            return "\(reference) is inside double quotes, where the value would not stay one word; "
                + "close the quotes before it and reopen them after (\"a \"${\(name)}\" b\"): Pipe quotes the value"
        case .backquoted:
            return "\(reference) is inside `…`, where quotes are read differently; write $(…) instead"
        case .arithmetic:
            return "\(reference) is inside $((…)), where the shell evaluates the value as an expression; assign it "
                + "outside (n=${\(name)}), check that it is a number, then write $n"
        case .hereDocument:
            return "\(reference) is inside a here-document, where the quotes around the value would stay in the "
                + "text; pipe it in instead (printf '%s\\n' ${\(name)} | …)"
        case .escaped:
            return "\(reference) follows a backslash, which would escape the quote Pipe puts around the value; "
                + "remove the backslash"
        case .shellExpansion:
            return "\(reference) is inside the shell's own $${…}; assign it to a variable first (v=${\(name)})"
        }
    }

    /// The position of every `${` of `text` that `Interpolator` replaces, in order (the `$${` escape is the shell's
    /// own `${`).
    static func positions(in text: String) -> [ShellReferencePosition] {
        var scanner = ShellReferenceScanner(units: ShellReferenceScanner.units(of: text))
        scanner.scan()
        return scanner.positions
    }
}

/// A small reader of POSIX shell quoting, enough to place references: quotes, `\`, `$'…'`, `` `…` ``, `$(…)`,
/// `$((…))`, `${…}`, comments and here-documents.
private struct ShellReferenceScanner {
    /// A character of the command, or a `${name}` that Pipe replaces.
    enum Unit: Equatable {
        case character(Unicode.Scalar)
        case reference
    }

    enum Context {
        case top
        case commandSubstitution(depth: Int)
        case shellExpansion
        case singleQuoted
        case dollarSingleQuoted
        case doubleQuoted
        case backquoted
        case arithmetic(depth: Int)
    }

    let units: [Unit]
    var positions: [ShellReferencePosition] = []
    private var stack: [Context] = [.top]
    private var index = 0
    private var atWordStart = true
    private var pendingHereDocuments: [(delimiter: String, stripsTabs: Bool)] = []

    init(units: [Unit]) { self.units = units }

    /// The text as the shell will read it: `$${` is `${`, and `${…}` (up to the first `}`) one reference, as
    /// `Interpolator` reads it.
    static func units(of text: String) -> [Unit] {
        let scalars = Array(text.unicodeScalars)
        var units: [Unit] = []
        var index = 0
        while index < scalars.count {
            let next = index + 1 < scalars.count ? scalars[index + 1] : nil
            let afterNext = index + 2 < scalars.count ? scalars[index + 2] : nil
            if scalars[index] == "$", next == "$", afterNext == "{" {
                units += [.character("$"), .character("{")]
                index += 3
            } else if scalars[index] == "$", next == "{" {
                units.append(.reference)
                guard let close = scalars[(index + 2)...].firstIndex(of: "}") else { break }
                index = close + 1
            } else {
                units.append(.character(scalars[index]))
                index += 1
            }
        }
        return units
    }

    private func character(_ offset: Int = 0) -> Unicode.Scalar? {
        let at = index + offset
        guard at < units.count, case .character(let scalar) = units[at] else { return nil }
        return scalar
    }

    private func isReference(_ offset: Int) -> Bool {
        index + offset < units.count && units[index + offset] == .reference
    }

    mutating func scan() {
        while index < units.count {
            guard let scalar = character() else {
                positions.append(position(in: stack.last ?? .top))
                atWordStart = false
                index += 1
                continue
            }
            switch stack.last ?? .top {
            case .singleQuoted:
                if scalar == "'" { stack.removeLast() }
                index += 1
            case .dollarSingleQuoted:
                scanEscapable(scalar, closing: "'", as: .singleQuoted)
            case .backquoted:
                scanEscapable(scalar, closing: "`", as: .backquoted)
            case .doubleQuoted:
                scanDoubleQuoted(scalar)
            case .arithmetic(let depth):
                scanArithmetic(scalar, depth: depth)
            case .top, .commandSubstitution, .shellExpansion:
                scanUnquoted(scalar)
            }
        }
    }

    /// Inside `$'…'` or `` `…` ``: a backslash escapes the next character; `closing` ends the context.
    private mutating func scanEscapable(
        _ scalar: Unicode.Scalar, closing: Unicode.Scalar, as position: ShellReferencePosition
    ) {
        if scalar == "\\" {
            skipEscaped(as: position)
            return
        }
        if scalar == closing { stack.removeLast() }
        index += 1
    }

    /// Skips a backslash and what it escapes, recording a reference it escapes as `position`.
    private mutating func skipEscaped(as position: ShellReferencePosition) {
        if isReference(1) { positions.append(position) }
        index += 2
    }

    private mutating func scanDoubleQuoted(_ scalar: Unicode.Scalar) {
        switch scalar {
        case "\\": skipEscaped(as: .doubleQuoted)
        case "\"":
            stack.removeLast()
            index += 1
        case "`":
            stack.append(.backquoted)
            index += 1
        case "$": scanDollar(allowsDollarQuote: false)
        default: index += 1
        }
    }

    private mutating func scanArithmetic(_ scalar: Unicode.Scalar, depth: Int) {
        if scalar == "(" {
            stack[stack.count - 1] = .arithmetic(depth: depth + 1)
        } else if scalar == ")" {
            if depth == 0, character(1) == ")" {
                stack.removeLast()
                index += 1
            } else {
                stack[stack.count - 1] = .arithmetic(depth: max(0, depth - 1))
            }
        }
        index += 1
    }

    private mutating func scanUnquoted(_ scalar: Unicode.Scalar) {
        let context = stack.last ?? .top
        let wasAtWordStart = atWordStart
        atWordStart = false
        switch scalar {
        case "\\": skipEscaped(as: .escaped)
        case "'":
            stack.append(.singleQuoted)
            index += 1
        case "\"":
            stack.append(.doubleQuoted)
            index += 1
        case "`":
            stack.append(.backquoted)
            index += 1
        case "$": scanDollar(allowsDollarQuote: true)
        case "#" where wasAtWordStart && !context.isShellExpansion:
            skipComment()
        case "}" where context.isShellExpansion:
            stack.removeLast()
            index += 1
        case "(":
            if case .commandSubstitution(let depth) = context {
                stack[stack.count - 1] = .commandSubstitution(depth: depth + 1)
            }
            atWordStart = true
            index += 1
        case ")":
            if case .commandSubstitution(let depth) = context {
                if depth == 0 {
                    stack.removeLast()
                } else {
                    stack[stack.count - 1] = .commandSubstitution(depth: depth - 1)
                }
            }
            atWordStart = true
            index += 1
        case "<" where character(1) == "<" && !context.isShellExpansion:
            if character(2) == "<" {
                index += 3
            } else {
                index += 2
                readHereDocumentOperator()
            }
        case "\n":
            atWordStart = true
            index += 1
            if !pendingHereDocuments.isEmpty { readHereDocumentBodies() }
        case " ", "\t", ";", "&", "|":
            atWordStart = true
            index += 1
        default:
            index += 1
        }
    }

    /// A comment runs to the end of its line; a reference in it is harmless, as a word.
    private mutating func skipComment() {
        while index < units.count, character() != "\n" {
            if isReference(0) { positions.append(.word) }
            index += 1
        }
    }

    /// `$'…'`, `$((`, `$(`, `${` or a special parameter (`$$`, `$?`, …); `index` is at the `$`.
    private mutating func scanDollar(allowsDollarQuote: Bool) {
        switch character(1) {
        case "'" where allowsDollarQuote:
            stack.append(.dollarSingleQuoted)
            index += 2
        case "(" where character(2) == "(":
            stack.append(.arithmetic(depth: 0))
            index += 3
        case "(":
            stack.append(.commandSubstitution(depth: 0))
            index += 2
        case "{":
            stack.append(.shellExpansion)
            index += 2
        case "$", "?", "!", "#", "@", "*", "-":
            index += 2
        default:
            index += 1
        }
    }

    /// After `<<`: an optional `-`, blanks, and the delimiter word (its quotes removed).
    private mutating func readHereDocumentOperator() {
        var stripsTabs = false
        if character() == "-" {
            stripsTabs = true
            index += 1
        }
        while let next = character(), next == " " || next == "\t" { index += 1 }
        var delimiter = ""
        var quote: Unicode.Scalar?
        while index < units.count {
            guard let next = character() else {
                positions.append(.hereDocument)
                index += 1
                continue
            }
            if let open = quote {
                if next == open { quote = nil } else { delimiter.unicodeScalars.append(next) }
            } else if next == "'" || next == "\"" {
                quote = next
            } else if next == "\\" {
                index += 1
                if let escaped = character() { delimiter.unicodeScalars.append(escaped) }
            } else if " \t\n;&|<>()".unicodeScalars.contains(next) {
                break
            } else {
                delimiter.unicodeScalars.append(next)
            }
            index += 1
        }
        pendingHereDocuments.append((delimiter, stripsTabs))
    }

    /// The bodies of the here-documents started on the line that just ended; `index` is at the next line.
    private mutating func readHereDocumentBodies() {
        for document in pendingHereDocuments {
            while index < units.count {
                var line = ""
                var hasReference = false
                while index < units.count, character() != "\n" {
                    if let next = character() { line.unicodeScalars.append(next) } else { hasReference = true }
                    if isReference(0) { positions.append(.hereDocument) }
                    index += 1
                }
                index += 1
                let compared = document.stripsTabs ? String(line.drop { $0 == "\t" }) : line
                if !hasReference, compared == document.delimiter { break }
            }
        }
        pendingHereDocuments = []
        atWordStart = true
    }

    private func position(in context: Context) -> ShellReferencePosition {
        switch context {
        case .top, .commandSubstitution: return .word
        case .shellExpansion: return .shellExpansion
        case .singleQuoted, .dollarSingleQuoted: return .singleQuoted
        case .doubleQuoted: return .doubleQuoted
        case .backquoted: return .backquoted
        case .arithmetic: return .arithmetic
        }
    }
}

extension ShellReferenceScanner.Context {
    fileprivate var isShellExpansion: Bool {
        if case .shellExpansion = self { return true }
        return false
    }
}
