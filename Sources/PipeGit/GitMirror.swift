import CGit2
import Foundation
import PipeCore

/// A bare mirror of one repository, kept under a folder the caller owns (e.g. `.pipe/git-mirrors`) so that the
/// second run of a pipeline fetches what changed instead of cloning everything again.
///
/// The mirror holds the remote's branches, tags, remote-tracking branches (`origin/x` of a local repository) and
/// its `HEAD`, pruned on every fetch. Work trees are written from it into per-run folders; it never has a work tree
/// of its own. Fetches are serialised by a lock file beside the mirror (`<mirror>.lock`), across threads and
/// processes. A first clone is written under a temporary name and renamed into place once complete, so an
/// interrupted clone never leaves a mirror that looks whole.
///
/// Blocking: call from a dedicated thread (see `PipeGitModule`).
public final class GitMirror {
    /// The repository as given (URL or local path).
    public let repository: String
    /// The mirror's folder (`<mirrorsFolder>/<name>-<digest>.git`).
    public let path: URL
    let location: GitRepositoryLocation
    private let mirrorsFolder: URL

    /// The ref the mirror stores the remote's `HEAD` under (fetched by refspec, so a detached `HEAD` that is on
    /// no branch is fetched too).
    static let remoteHeadRef = "refs/pipe/remote-HEAD"
    private static let fetchRefspecs = [
        "+refs/heads/*:refs/heads/*",
        "+refs/tags/*:refs/tags/*",
        "+refs/remotes/*:refs/remotes/*",
        "+HEAD:\(remoteHeadRef)",
    ]

    /// Names the mirror of `repository` under `mirrorsFolder`; touches nothing on disk yet.
    ///
    /// Throws `GitError.repositoryNotFound` at once for a local path that does not exist or is not a repository's
    /// top folder, and `GitError.notOwnedByCurrentUser` for one owned by another user.
    public init(repository: String, mirrorsFolder: URL) throws {
        self.location = try GitRepositoryLocation.parse(repository)
        self.repository = repository
        self.mirrorsFolder = mirrorsFolder.standardizedFileURL
        self.path = self.mirrorsFolder.appendingPathComponent(location.mirrorFolderName, isDirectory: true)
    }

    /// Where a pull request's head fetched on its own is kept (`refs/pull/7/head` → `refs/pipe/fetched/pull/7/head`):
    /// outside the refspecs' destinations, so pruning never drops it.
    static let fetchedRefPrefix = "refs/pipe/fetched/"

    /// Brings the mirror up to date with the repository: a clone the first time, a fetch afterwards; with
    /// `fetchRef` (a pull or merge request's head, `refs/pull/7/head`), that one ref too, and no other of its kind.
    public func update(fetchRef: String? = nil, cancellation: CancellationToken? = nil) throws -> GitMirrorUpdate {
        try withLock(cancellation: cancellation) {
            try updateLocked(fetchRef: fetchRef, cancellation: cancellation).update
        }
    }

    /// The ref `fetchRef` is kept under in the mirror, once checked: only a pull request's or merge request's head
    /// (`refs/pull/<n>/head`, `refs/merge-requests/<n>/head`) is fetched on its own, since branches come with every
    /// fetch.
    public static func mirrorRef(forFetchRef fetchRef: String) throws -> String {
        let parts = fetchRef.split(separator: "/", omittingEmptySubsequences: false)
        guard parts.count == 4, parts[0] == "refs", parts[1] == "pull" || parts[1] == "merge-requests",
            parts[3] == "head", let number = Int(parts[2]), number > 0, String(number) == parts[2]
        else {
            throw GitError.invalidFetchRef(
                fetchRef, reason: "only refs/pull/<number>/head and refs/merge-requests/<number>/head are fetched")
        }
        return fetchedRefPrefix + parts.dropFirst().joined(separator: "/")
    }

    /// Resolves a ref against what the mirror holds now (call `update` first to see the repository's latest state).
    public func resolve(ref: String) throws -> ResolvedCommit {
        let handle = try GitRepositoryHandle.openBare(at: path.path, repository: repository)
        return try GitRefResolver(mirror: handle).resolve(ref)
    }

    // MARK: - Internals shared with GitCheckout

    func withLock<T>(cancellation: CancellationToken?, _ body: () throws -> T) throws -> T {
        do {
            try FileManager.default.createDirectory(at: mirrorsFolder, withIntermediateDirectories: true)
        } catch {
            throw GitError.fileSystem(
                operation: "create the mirrors folder", path: mirrorsFolder.path, message: "\(error)")
        }
        let lock = try MirrorLock(path: path.path + ".lock", repository: repository, cancellation: cancellation)
        return try withExtendedLifetime(lock) { try body() }
    }

    /// Clones or fetches; the caller holds the lock. Returns the open mirror for the steps that follow.
    func updateLocked(fetchRef: String? = nil, cancellation: CancellationToken?) throws -> (
        update: GitMirrorUpdate, handle: GitRepositoryHandle
    ) {
        let pinned = try fetchRef.map { ($0, try Self.mirrorRef(forFetchRef: $0)) }
        let clock = ContinuousClock()
        let started = clock.now
        let cloned: Bool
        let handle: GitRepositoryHandle
        let head: RemoteHead
        if let existing = try openExisting() {
            (cloned, handle) = (false, existing)
            head = try Self.fetch(into: existing, url: location.remoteURL, cancellation: cancellation)
        } else {
            cloned = true
            (handle, head) = try cloneIntoPlace(cancellation: cancellation)
        }
        if let (source, destination) = pinned {
            _ = try Self.fetch(
                into: handle, url: location.remoteURL, refspecs: ["+\(source):\(destination)"], prune: false,
                cancellation: cancellation)
        }
        let update = GitMirrorUpdate(
            cloned: cloned, seconds: Self.seconds(clock.now - started), remoteHeadSHA: head.sha,
            defaultBranch: head.defaultBranch)
        return (update, handle)
    }

    /// The mirror when it exists and opens. A folder there that is not a repository (a damaged mirror) is removed
    /// so it can be cloned again, unless it belongs to another user: that is refused, never deleted.
    private func openExisting() throws -> GitRepositoryHandle? {
        guard FileManager.default.fileExists(atPath: path.path) else { return nil }
        do {
            return try GitRepositoryHandle.openBare(at: path.path, repository: repository)
        } catch GitError.libgit2(_, _, let code, _) where code == GIT_ENOTFOUND.rawValue {
            if let owner = FileOwner.foreignOwner(of: path.path) {
                throw GitError.notOwnedByCurrentUser(repository: path.path, detail: owner)
            }
            do {
                try FileManager.default.removeItem(at: path)
            } catch {
                throw GitError.fileSystem(operation: "remove a damaged mirror", path: path.path, message: "\(error)")
            }
            return nil
        }
    }

    private func cloneIntoPlace(cancellation: CancellationToken?) throws -> (GitRepositoryHandle, RemoteHead) {
        removeAbandonedPartialClones()
        let partial = mirrorsFolder.appendingPathComponent(
            ".\(path.lastPathComponent).partial-\(getpid())-\(UInt32.random(in: 0...UInt32.max))", isDirectory: true)
        defer { try? FileManager.default.removeItem(at: partial) }
        let head: RemoteHead
        do {
            // Scoped so the partial repository is closed before it is renamed.
            let handle: GitRepositoryHandle
            if location.localPath != nil {
                handle = try cloneLocal(into: partial, cancellation: cancellation)
            } else {
                handle = try GitRepositoryHandle.initBare(at: partial.path, repository: repository)
                try handle.check(
                    Self.createMirrorRemote(handle.pointer, name: "origin", url: location.remoteURL, out: nil),
                    "configure the mirror's remote")
            }
            // After a local clone this only records where the remote's HEAD is (nothing is left to transfer).
            head = try Self.fetch(into: handle, url: location.remoteURL, cancellation: cancellation)
        }
        do {
            try FileManager.default.moveItem(at: partial, to: path)
        } catch {
            throw GitError.fileSystem(operation: "move the new mirror into place", path: path.path, message: "\(error)")
        }
        return (try GitRepositoryHandle.openBare(at: path.path, repository: repository), head)
    }

    /// Partial clones left by a run that died; safe to remove because this run holds the mirror's lock.
    private func removeAbandonedPartialClones() {
        let prefix = ".\(path.lastPathComponent).partial-"
        let names = (try? FileManager.default.contentsOfDirectory(atPath: mirrorsFolder.path)) ?? []
        for name in names where name.hasPrefix(prefix) {
            try? FileManager.default.removeItem(at: mirrorsFolder.appendingPathComponent(name))
        }
    }

    /// A first clone of a local repository: libgit2 hard-links (or copies) its object files instead of packing
    /// them the way a fetch does — about ten times faster on a repository with many loose objects.
    private func cloneLocal(into partial: URL, cancellation: CancellationToken?) throws -> GitRepositoryHandle {
        var options = git_clone_options()
        try GitLibrary.check(
            git_clone_options_init(&options, UInt32(GIT_CLONE_OPTIONS_VERSION)), "prepare the clone",
            repository: repository)
        options.bare = 1
        options.local = GIT_CLONE_LOCAL
        options.remote_cb = { out, repository, name, url, _ in
            GitMirror.createMirrorRemote(repository, name: name, url: url, out: out)
        }
        var cloned: OpaquePointer?
        let code = Self.withFetchOptions(cancellation: cancellation) { fetchOptions, context in
            options.fetch_opts = fetchOptions
            return (git_clone(&cloned, location.remoteURL, partial.path, &options), context.abortReason)
        }
        git_repository_free(cloned)
        try Self.throwFetchFailure(code: code.0, abortReason: code.1, operation: "clone", repository: repository)
        return try GitRepositoryHandle.openBare(at: partial.path, repository: repository)
    }

    /// Creates the remote `name` with every mirror refspec; hands it out through `out` when asked (clone's callback).
    private static func createMirrorRemote(
        _ repository: OpaquePointer?, name: UnsafePointer<CChar>?, url: UnsafePointer<CChar>?,
        out: UnsafeMutablePointer<OpaquePointer?>?
    ) -> Int32 {
        var remote: OpaquePointer?
        var code = git_remote_create_with_fetchspec(&remote, repository, name, url, fetchRefspecs[0])
        git_remote_free(remote)
        for refspec in fetchRefspecs.dropFirst() where code == 0 {
            code = git_remote_add_fetch(repository, name, refspec)
        }
        if code == 0, let out { code = git_remote_lookup(out, repository, name) }
        return code
    }

    /// What the remote's `HEAD` was at the last fetch.
    struct RemoteHead {
        var sha: String?
        var defaultBranch: String?
    }

    /// Fetches every mirror refspec from `url` with pruning, then points the mirror's `HEAD` where the remote's is.
    ///
    /// The remote is made in memory from the mirror's URL and refspecs (the same as its `origin` remote), not looked
    /// up in its config: libgit2 1.5's lookup applies `url.*.insteadOf` rules through a config glob whose regex
    /// match leaks its PCRE2 match data (≈ 20 KB each with PCRE2 10.42) for every config entry that does not match
    /// — ≈ 270 KB per fetch, kept for good by a controller that runs thousands of runs (libgit2/libgit2#6382, fixed
    /// in 1.6). The mirror's config, written by Pipe, has no such rule, and no global config is read.
    static func fetch(
        into handle: GitRepositoryHandle, url: String, refspecs: [String] = fetchRefspecs, prune: Bool = true,
        cancellation: CancellationToken?
    ) throws -> RemoteHead {
        if let reason = cancellation?.cancellationReason {
            throw GitError.cancelled(repository: handle.repository, reason: reason)
        }
        var createOptions = git_remote_create_options()
        try handle.check(
            git_remote_create_options_init(&createOptions, UInt32(GIT_REMOTE_CREATE_OPTIONS_VERSION)),
            "prepare the mirror's remote")
        createOptions.repository = handle.pointer
        createOptions.flags =
            GIT_REMOTE_CREATE_SKIP_INSTEADOF.rawValue | GIT_REMOTE_CREATE_SKIP_DEFAULT_FETCHSPEC.rawValue
        var remote: OpaquePointer?
        try handle.check(git_remote_create_with_opts(&remote, url, &createOptions), "set up the mirror's remote")
        defer { git_remote_free(remote) }

        let (code, abortReason) = withFetchOptions(prune: prune, cancellation: cancellation) { options, context in
            withStringArray(refspecs) { array in
                (git_remote_fetch(remote, &array, &options, "pipe: fetch"), context.abortReason)
            }
        }
        try throwFetchFailure(code: code, abortReason: abortReason, operation: "fetch", repository: handle.repository)
        return try pointHead(of: handle, atHeadOf: remote)
    }

    /// `refspecs` as libgit2's string array, for the length of `body`.
    private static func withStringArray<T>(_ refspecs: [String], _ body: (inout git_strarray) -> T) -> T {
        var strings: [UnsafeMutablePointer<CChar>?] = refspecs.map { strdup($0) }
        defer { for string in strings { free(string) } }
        return strings.withUnsafeMutableBufferPointer { buffer in
            var array = git_strarray(strings: buffer.baseAddress, count: buffer.count)
            return body(&array)
        }
    }

    /// Fetch options shared by clone and fetch: prune, no FETCH_HEAD, cancellation through the progress callbacks.
    private static func withFetchOptions<T>(
        prune: Bool = true, cancellation: CancellationToken?,
        _ body: (inout git_fetch_options, GitCallbackContext) -> T
    ) -> T {
        var options = git_fetch_options()
        git_fetch_options_init(&options, UInt32(GIT_FETCH_OPTIONS_VERSION))
        options.prune = prune ? GIT_FETCH_PRUNE : GIT_FETCH_NO_PRUNE
        options.update_fetchhead = 0
        // The refspecs name the tags explicitly; automatic tag following would only add tags outside them.
        options.download_tags = GIT_REMOTE_DOWNLOAD_TAGS_NONE
        let context = GitCallbackContext(cancellation: cancellation)
        options.callbacks.payload = Unmanaged.passUnretained(context).toOpaque()
        options.callbacks.transfer_progress = { _, payload in
            GitCallbackContext.from(payload)?.shouldAbort() == true ? -1 : 0
        }
        options.callbacks.sideband_progress = { _, _, payload in
            GitCallbackContext.from(payload)?.shouldAbort() == true ? -1 : 0
        }
        return withExtendedLifetime(context) { body(&options, context) }
    }

    /// Reads libgit2's error first (the next call may replace it), then reports a cancellation as one.
    private static func throwFetchFailure(code: Int32, abortReason: String?, operation: String, repository: String)
        throws
    {
        guard code < 0 else { return }
        let error = GitLibrary.error(code: code, operation: operation, repository: repository)
        if let abortReason { throw GitError.cancelled(repository: repository, reason: abortReason) }
        throw error
    }

    private static func pointHead(of handle: GitRepositoryHandle, atHeadOf remote: OpaquePointer?) throws
        -> RemoteHead
    {
        var head = RemoteHead()
        var headsPointer: UnsafeMutablePointer<UnsafePointer<git_remote_head>?>?
        var count = 0
        if git_remote_ls(&headsPointer, &count, remote) == 0, let heads = headsPointer {
            for index in 0..<count {
                guard let entry = heads[index], let name = entry.pointee.name, String(cString: name) == "HEAD"
                else { continue }
                head.sha = withUnsafePointer(to: entry.pointee.oid) { GitLibrary.hex($0) }
            }
        }
        var buffer = git_buf()
        defer { git_buf_dispose(&buffer) }
        if git_remote_default_branch(&buffer, remote) == 0, let branch = buffer.ptr {
            head.defaultBranch = String(cString: branch)
        }
        git_error_clear()
        if let branch = head.defaultBranch {
            try handle.check(git_repository_set_head(handle.pointer, branch), "point the mirror's HEAD at \(branch)")
        } else if head.sha != nil {
            var reference: OpaquePointer?
            if git_reference_lookup(&reference, handle.pointer, remoteHeadRef) == 0,
                let target = git_reference_target(reference)
            {
                try handle.check(git_repository_set_head_detached(handle.pointer, target), "detach the mirror's HEAD")
            }
            git_reference_free(reference)
        }
        return head
    }

    static func seconds(_ duration: Duration) -> Double {
        let (seconds, attoseconds) = duration.components
        return Double(seconds) + Double(attoseconds) / 1e18
    }
}

/// What `GitMirror.update` did.
public struct GitMirrorUpdate: Sendable, Equatable {
    /// True when the mirror did not exist and was cloned; false when an existing mirror was fetched.
    public let cloned: Bool
    /// How long the clone or fetch took.
    public let seconds: Double
    /// The commit the remote's `HEAD` pointed at, when it has one.
    public let remoteHeadSHA: String?
    /// The branch the remote's `HEAD` names (e.g. `refs/heads/main`), when known.
    public let defaultBranch: String?
}
