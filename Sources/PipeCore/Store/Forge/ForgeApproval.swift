import Foundation

/// A maintainer's approval to run a pull request from a fork, pinned to the head commit they saw.
public struct ForgeApproval: Sendable, Equatable {
    public var forge: String
    public var repository: String
    /// The pull request's number (GitLab: the merge request's iid).
    public var number: Int
    public var headSHA: String
    /// Who approved, as the forge or the chat names them (`github:octocat`).
    public var approvedBy: String
    /// How: `label ok-to-test`, `chat`, `pipe forge approve`.
    public var via: String
    public var approvedAt: Date

    public init(
        forge: String, repository: String, number: Int, headSHA: String, approvedBy: String, via: String,
        approvedAt: Date
    ) {
        self.forge = forge
        self.repository = repository
        self.number = number
        self.headSHA = headSHA
        self.approvedBy = approvedBy
        self.via = via
        self.approvedAt = approvedAt
    }
}
