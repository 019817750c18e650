/// A ref resolved to one commit.
public struct ResolvedCommit: Sendable, Equatable {
    /// The commit's full SHA (40 lowercase hex digits).
    public let sha: String
    /// The ref as it was resolved: a full ref name (`refs/heads/main`, `refs/tags/v1.0`,
    /// `refs/remotes/origin/x`), the full SHA when a SHA was given, `HEAD` for a detached remote `HEAD`, or the
    /// revision expression itself (`main~1`).
    public let resolvedRef: String

    public init(sha: String, resolvedRef: String) {
        self.sha = sha
        self.resolvedRef = resolvedRef
    }
}
