import Foundation
import PipeCore

/// Checks a repository out at a ref into a fresh folder, through a cached bare mirror.
///
/// Blocking: call from a dedicated thread (see `PipeGitModule`).
public enum GitCheckout {
    /// Checks `repository` out at `ref` into `workTree`.
    ///
    /// - Parameters:
    ///   - repository: a URL (`https://…`, `ssh://…`, `file://…`, `user@host:path`) or a local path (absolute or
    ///     relative to the current folder) of a repository's top folder.
    ///   - ref: a branch (`main`), a tag (`v1.0`), a full or short (≥ 4 digits) commit SHA, `HEAD` (the
    ///     repository's current commit), `origin/x`, or a full ref name (`refs/heads/main`).
    ///   - workTree: a folder that does not exist yet or is empty; it receives exactly the commit's files (file
    ///     modes and symlinks kept, no `.git`).
    ///   - mirrorsFolder: where bare mirrors are cached (e.g. `<project>/.pipe/git-mirrors`): the first run for a
    ///     repository clones it there, later runs only fetch what changed.
    ///   - fetchRef: a pull or merge request's head (`refs/pull/7/head`) to fetch on its own first, so that `ref`
    ///     (its exact head SHA) can be found even when it is on no branch, as a fork's commits are.
    ///   - cancellation: checked while waiting for another run's lock on the same mirror, during the transfer,
    ///     and between steps.
    ///   - trustedRefs: the project's protected refs; the result names the first one the commit is reachable from,
    ///     asked of the same mirror state the commit was resolved in.
    ///
    /// Only **committed** content is checked out: uncommitted or untracked changes in a local repository's work
    /// tree are not included, because a run verifies a commit that others can check out again by its SHA.
    /// Submodules are not checked out.
    public static func checkout(
        repository: String, ref: String, into workTree: URL, mirrorsFolder: URL,
        fetchRef: String? = nil, cancellation: CancellationToken? = nil, trustedRefs: [TrustedRefPattern] = []
    ) throws -> CheckoutResult {
        let mirror = try GitMirror(repository: repository, mirrorsFolder: mirrorsFolder)
        return try mirror.withLock(cancellation: cancellation) {
            let (update, handle) = try mirror.updateLocked(fetchRef: fetchRef, cancellation: cancellation)
            let commit = try GitRefResolver(mirror: handle).resolve(ref)
            let protectedRef = try GitReachability.firstProtectedRef(
                reaching: commit.sha, patterns: trustedRefs, in: handle)
            if let reason = cancellation?.cancellationReason {
                throw GitError.cancelled(repository: repository, reason: reason)
            }
            let clock = ContinuousClock()
            let started = clock.now
            try GitTreeExport.write(commitSHA: commit.sha, from: handle, into: workTree)
            return CheckoutResult(
                commitSHA: commit.sha, resolvedRef: commit.resolvedRef, workTree: workTree.standardizedFileURL,
                mirror: mirror.path, mirrorUpdate: update, checkoutSeconds: GitMirror.seconds(clock.now - started),
                protectedRef: protectedRef)
        }
    }

    /// Resolves `ref` to a commit of `repository` as it is now (the mirror is fetched first), without a work tree.
    ///
    /// Accepts the same refs as `checkout`; throws `GitError.unknownRef` with the closest names for a typo.
    public static func resolveCommit(
        repository: String, ref: String, mirrorsFolder: URL, cancellation: CancellationToken? = nil
    ) throws -> ResolvedCommit {
        let mirror = try GitMirror(repository: repository, mirrorsFolder: mirrorsFolder)
        return try mirror.withLock(cancellation: cancellation) {
            let (_, handle) = try mirror.updateLocked(cancellation: cancellation)
            return try GitRefResolver(mirror: handle).resolve(ref)
        }
    }
}
