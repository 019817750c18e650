import Foundation

/// What `GitCheckout.checkout` produced.
public struct CheckoutResult: Sendable, Equatable {
    /// The commit checked out: 40 lowercase hex digits. The run records this, not the ref.
    public let commitSHA: String
    /// The ref as resolved (`refs/heads/main`, `refs/tags/v1.0`, or the SHA itself); see `ResolvedCommit`.
    public let resolvedRef: String
    /// The folder holding the commit's files (no `.git`).
    public let workTree: URL
    /// The bare mirror the files came from.
    public let mirror: URL
    /// Whether the mirror was cloned (first run) or fetched, and how long that took.
    public let mirrorUpdate: GitMirrorUpdate
    /// How long writing the work tree took.
    public let checkoutSeconds: Double
    /// The first of the `trustedRefs` asked about that the commit is reachable from; `nil` when none is.
    public let protectedRef: String?
}
