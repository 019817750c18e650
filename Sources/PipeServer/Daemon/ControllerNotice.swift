import Foundation

/// One thing the controller tells its log (not a run's own events, which the runs' renderers show).
public struct ControllerNotice: Sendable, Equatable {
    /// What happened, as a word for JSON lines and filters: `started`, `schedule-fired`, `watch-new-commit`,
    /// `run-started`, `run-finished`, `reloaded`, `reload-refused`, `stopping`, `stopped`, `problem`, …
    public var kind: String
    /// One line for people.
    public var message: String
    /// The run it is about, if any.
    public var runID: String?
    /// Details for JSON lines (`schedule`, `slot`, `sha`, `branch`, `pipeline`, …).
    public var fields: [String: String]
    /// Problems are shown as warnings.
    public var isProblem: Bool

    public init(
        _ kind: String, _ message: String, runID: String? = nil, fields: [String: String] = [:],
        isProblem: Bool = false
    ) {
        self.kind = kind
        self.message = message
        self.runID = runID
        self.fields = fields
        self.isProblem = isProblem
    }
}

/// Where the controller's notices go (the command line prints them, plain or as JSON lines). Called from several
/// threads.
public protocol ControllerLog: AnyObject, Sendable {
    func notice(_ notice: ControllerNotice)
}
