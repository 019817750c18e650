/// Who put a run in the queue, which decides its priority: people (a `pipe enqueue`, a chat command) before
/// machines (a schedule, a watched branch, a forge's event), first come first served within a priority.
public enum QueueSource: String, Sendable, Codable, CaseIterable {
    /// `pipe enqueue`.
    case manual
    /// A chat command (`/pipe run …`).
    case chat
    /// A schedule of the controller's config.
    case schedule
    /// A new commit on a watched branch.
    case watch
    /// A forge's webhook: a push, a pull request, a re-run asked for on the forge.
    case forge

    /// Lower runs first.
    public var priority: Int {
        switch self {
        case .manual, .chat: return 0
        case .schedule, .watch, .forge: return 1
        }
    }
}
