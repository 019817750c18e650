import Foundation

/// Why a reading ID was refused. Tests assert the case, not just that something was thrown: an unexpected error
/// from elsewhere must not pass for a rejected ID.
public enum ReadingIDError: Error, Equatable, LocalizedError {
    /// Nothing left after trimming the whitespace around it.
    case empty
    /// More than 32 characters (after trimming).
    case tooLong(count: Int)
    /// A character other than an ASCII letter, digit, `_` or `-`; whitespace inside the ID counts as one.
    case invalidCharacter(Character)

    // Shown to the person running the shortcut. A shipping app takes these texts from its localized resources.
    public var errorDescription: String? {
        switch self {
        case .empty:
            return "Enter a reading ID: 1 to 32 letters, digits, underscores or hyphens."
        case .tooLong(let count):
            return "A reading ID has at most \(ReadingID.maximumLength) characters; this one has \(count)."
        case .invalidCharacter(let character):
            return "A reading ID may only contain ASCII letters, digits, underscores and hyphens, not "
                + String(reflecting: String(character)) + "."
        }
    }
}
