/// What the controller did with one verified delivery: the webhook's answer and its audit entry.
public struct ForgeIntakeResult: Sendable, Equatable {
    public enum Action: Sendable, Equatable {
        /// A run was queued at the event's exact head.
        case queued(pipeline: String, runID: String)
        /// An earlier run of the pipeline at this commit, with the same parameters, stands for this event: its
        /// result is posted again rather than run again.
        case reused(pipeline: String, runID: String)
        /// A queued run was dropped, or a running one cancelled, because a newer head arrived.
        case superseded(runID: String, bySHA: String)
        /// A queued run was dropped, or a running one cancelled, because its pull request was closed.
        case stopped(runID: String, reason: String)
        /// Nothing was run for this pipeline (or for the event, with no pipeline), and why.
        case skipped(pipeline: String?, reason: String)
    }

    /// One line for the HTTP answer and the audit log.
    public var summary: String
    public var actions: [Action]

    public init(summary: String, actions: [Action] = []) {
        self.summary = summary
        self.actions = actions
    }

    /// The runs whose results go (again) to the forge.
    public var reportedRuns: [String] {
        actions.compactMap {
            switch $0 {
            case .queued(_, let runID), .reused(_, let runID): runID
            default: nil
            }
        }
    }
}
