/// What the screen shows about the last save. It never depends on haptics: a person with haptics turned off, or on
/// a device without them, sees the same result.
public enum SaveStatus: Equatable, Sendable {
    case idle
    case saving
    case saved
    /// The save failed; the message is shown to the user.
    case failed(String)
}
