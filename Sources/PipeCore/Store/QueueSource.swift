/// Who put a run in the queue, which decides its priority: people (a `pipe enqueue`, a chat command) before
/// machines (a schedule, a watched branch), first come first served within a priority.
public enum QueueSource: String, Sendable, Codable, CaseIterable {
    /// `pipe enqueue`.
    case manual
    /// A chat command (`/pipe run …`).
    case chat
    /// A schedule of the controller's config.
    case schedule
    /// A new commit on a watched branch.
    case watch

    /// Lower runs first.
    public var priority: Int {
        switch self {
        case .manual, .chat: return 0
        case .schedule, .watch: return 1
        }
    }
}
