import PipeBasics

/// A request Pipe refuses to build: a value that cannot go where it was meant to.
public enum ForgeRequestError: Error, Equatable, CustomStringConvertible {
    case badPathValue(name: String, value: String)
    case badCommitSHA(String)
    case badCredential(String)
    case badPrivateKey(String)

    public var description: String {
        switch self {
        case .badPathValue(let name, let value):
            return "the \(name) \(ForgeText.quoted(value)) cannot be part of a forge API path (it is empty or a dot "
                + "segment): check the repository in forges.yml or the webhook that named it"
        case .badCommitSHA(let text):
            return "\(ForgeText.quoted(text)) is not a commit id (40 or 64 hexadecimal digits): pass the full SHA"
        case .badCredential(let why):
            return "the forge token cannot be sent: \(why); check the file or environment variable forges.yml names"
        case .badPrivateKey(let why):
            return "the GitHub App's private key cannot be used: \(why); give the PEM file GitHub generated for the app"
        }
    }
}

/// Small text helpers for messages about forge values.
enum ForgeText {
    /// `text` quoted for an error message: control characters shown, at most 80 characters.
    static func quoted(_ text: String) -> String {
        let shown = DisplayEscaping.escaped(text)
        return "\"" + (shown.count > 80 ? String(shown.prefix(79)) + "…" : shown) + "\""
    }
}
