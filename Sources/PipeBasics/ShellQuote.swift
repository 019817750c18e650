/// POSIX shell quoting for values that reach a remote `/bin/sh`.
///
/// Every value (scheme names, test identifiers, paths from YAML, chat messages, environment variables) is wrapped
/// in single quotes; a single quote inside becomes `'\''`. Inside single quotes a POSIX shell gives no character a
/// special meaning, so `$()`, backticks, `;`, newlines and spaces all stay plain data.
public enum ShellQuote {
    /// Characters that need no quoting, except in a word that reads as an assignment: keeps logged command lines
    /// readable without weakening anything.
    private static let plainCharacters = Set(
        "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789@%+=:,./-_")

    /// Quotes one value so a POSIX shell reads it back as exactly one word with the same bytes.
    public static func quote(_ value: String) -> String {
        if !value.isEmpty, value.allSatisfy({ plainCharacters.contains($0) }), !readsAsAssignment(value),
            !value.hasPrefix("=")
        {
            return value
        }
        return "'" + value.replacingOccurrences(of: "'", with: "'\\''") + "'"
    }

    /// `NAME=…`: as the first word of a command, a shell takes it for an assignment, not a command to run. (A word
    /// that starts with `=` is zsh's `=cmd`, the path of `cmd`; `quote` quotes it too.)
    private static func readsAsAssignment(_ value: String) -> Bool {
        guard let equals = value.firstIndex(of: "=") else { return false }
        return isIdentifier(value[..<equals])
    }

    /// `[A-Za-z_][A-Za-z0-9_]*`: a name a shell takes for a variable.
    public static func isIdentifier(_ name: some StringProtocol) -> Bool {
        guard let first = name.unicodeScalars.first, first == "_" || (first.isASCII && first.properties.isAlphabetic)
        else { return false }
        return name.unicodeScalars.allSatisfy {
            $0 == "_" || ($0.isASCII && ($0.properties.isAlphabetic || ("0"..."9").contains($0)))
        }
    }

    /// Joins typed arguments into one command line, each argument quoted on its own.
    public static func join(_ arguments: [String]) -> String {
        arguments.map(quote).joined(separator: " ")
    }
}
