import Foundation

/// A maintainer's approval, from the chat, of a fork's pull request at its current head.
public struct ChatApprovalRequest: Sendable, Equatable {
    /// The forge of forges.yml, as typed.
    public var forge: String
    /// The pull request's number (GitLab: the merge request's iid).
    public var number: Int
    /// The head commit the maintainer reviewed; the approval is refused when the pull request is elsewhere now.
    public var headSHA: String?
    /// The chat user id that forges.yml's `chat-approvers:` lists.
    public var userID: String
    /// The chat identity that approves: `alice (U012ABCDEF)`.
    public var approvedBy: String

    public init(forge: String, number: Int, headSHA: String?, userID: String, approvedBy: String) {
        self.forge = forge
        self.number = number
        self.headSHA = headSHA
        self.userID = userID
        self.approvedBy = approvedBy
    }
}

/// The approval is not the chat user's to give (the fork policy does not list them): answered 403 and audited as
/// refused, with `message` saying what would allow it.
public struct ChatApprovalRefused: Error, Sendable, Equatable, CustomStringConvertible {
    public var message: String

    public init(_ message: String) { self.message = message }

    public var description: String { message }
}
