/// POSIX shell quoting for values that reach a remote `/bin/sh`.
///
/// Every value (scheme names, test identifiers, paths from YAML, chat messages, environment variables) is wrapped
/// in single quotes; a single quote inside becomes `'\''`. Inside single quotes a POSIX shell gives no character a
/// special meaning, so `$()`, backticks, `;`, newlines and spaces all stay plain data.
public enum ShellQuote {
    /// Characters that never need quoting: keeps logged command lines readable without weakening anything.
    private static let plainCharacters = Set(
        "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789@%+=:,./-_")

    /// Quotes one value so a POSIX shell reads it back as exactly one word with the same bytes.
    public static func quote(_ value: String) -> String {
        if !value.isEmpty, value.allSatisfy({ plainCharacters.contains($0) }) {
            return value
        }
        return "'" + value.replacingOccurrences(of: "'", with: "'\\''") + "'"
    }

    /// Joins typed arguments into one command line, each argument quoted on its own.
    public static func join(_ arguments: [String]) -> String {
        arguments.map(quote).joined(separator: " ")
    }
}
