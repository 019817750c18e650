import Foundation

/// The head commit a watch last saw on one branch.
public struct WatchHead: Sendable, Equatable {
    /// The watch's name in the controller's config.
    public var watch: String
    /// The branch (`main`, `release/2.0`).
    public var branch: String
    /// The commit, 40 hex digits.
    public var sha: String
    public var seenAt: Date

    public init(watch: String, branch: String, sha: String, seenAt: Date) {
        self.watch = watch
        self.branch = branch
        self.sha = sha
        self.seenAt = seenAt
    }
}
