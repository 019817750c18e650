import Foundation

/// One request to the chat-ops endpoint as the audit log keeps it: allowed or not, who (when the request proved
/// it came from the chat), what, and what came of it. Never a secret or a signature.
public struct ChatAuditEntry: Sendable, Equatable, Codable {
    /// How the request ended.
    public enum Decision: String, Sendable, Codable {
        /// Done: a run queued, a sign-off recorded, a question answered.
        case accepted
        /// Refused: not verified, not authorized, over a limit, or not understood.
        case refused
        /// Understood and allowed, but the backend could not do it (no such run, the sign-off lacked a field…).
        case failed
    }

    public var at: Date
    public var remoteAddress: String
    /// The HTTP status answered; `nil` when the connection was cut off without an answer.
    public var status: Int?
    public var decision: Decision
    /// Why, in words.
    public var reason: String
    /// Whether the request proved it came from the chat; the user fields are only filled when it did.
    public var verified: Bool
    public var userID: String?
    public var userName: String?
    public var channelID: String?
    public var teamID: String?
    /// The command word (`run`, `signoff`…), when understood.
    public var command: String?
    /// What was typed after the slash command.
    public var text: String?
    /// The run queued, signed or asked about.
    public var runID: String?

    public init(
        at: Date, remoteAddress: String, status: Int?, decision: Decision, reason: String, verified: Bool = false,
        userID: String? = nil, userName: String? = nil, channelID: String? = nil, teamID: String? = nil,
        command: String? = nil, text: String? = nil, runID: String? = nil
    ) {
        self.at = at
        self.remoteAddress = remoteAddress
        self.status = status
        self.decision = decision
        self.reason = reason
        self.verified = verified
        self.userID = userID
        self.userName = userName
        self.channelID = channelID
        self.teamID = teamID
        self.command = command
        self.text = text
        self.runID = runID
    }
}
