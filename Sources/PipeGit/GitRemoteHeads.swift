import CGit2
import Foundation

/// One ref a remote advertises, as `git ls-remote` prints it.
public struct GitRemoteHead: Sendable, Equatable {
    /// The ref name: `HEAD`, `refs/heads/main`, `refs/tags/v1.0`, and for an annotated tag also
    /// `refs/tags/v1.0^{}` (the commit the tag points at).
    public let ref: String
    /// The object id, 40 lowercase hex digits.
    public let sha: String
    /// For a symbolic ref the remote names a target for (usually `HEAD` → `refs/heads/main`), that target.
    public let symbolicTarget: String?

    public init(ref: String, sha: String, symbolicTarget: String? = nil) {
        self.ref = ref
        self.sha = sha
        self.symbolicTarget = symbolicTarget
    }
}

/// Lists a remote's refs without downloading anything: cheap enough for a controller that polls for new commits.
///
/// Blocking: call from a dedicated thread (see `PipeGitModule`).
public enum GitRemoteHeads {
    /// The refs `repository` (URL or local path) advertises, in the remote's order (`HEAD` first).
    public static func list(repository: String) throws -> [GitRemoteHead] {
        let location = try GitRepositoryLocation.parse(repository)
        // Only a local path initialises the library while parsing; a URL may be the process's first Git call.
        GitLibrary.ensureInitialised()
        var remote: OpaquePointer?
        try GitLibrary.check(
            git_remote_create_detached(&remote, location.remoteURL), "set up the remote", repository: repository)
        defer { git_remote_free(remote) }
        var callbacks = git_remote_callbacks()
        try GitLibrary.check(
            git_remote_init_callbacks(&callbacks, UInt32(GIT_REMOTE_CALLBACKS_VERSION)), "prepare the connection",
            repository: repository)
        try GitLibrary.check(
            git_remote_connect(remote, GIT_DIRECTION_FETCH, &callbacks, nil, nil), "connect",
            repository: repository)
        defer { git_remote_disconnect(remote) }
        var headsPointer: UnsafeMutablePointer<UnsafePointer<git_remote_head>?>?
        var count = 0
        try GitLibrary.check(git_remote_ls(&headsPointer, &count, remote), "list refs", repository: repository)
        guard let heads = headsPointer else { return [] }
        return (0..<count).compactMap { index -> GitRemoteHead? in
            guard let entry = heads[index], let name = entry.pointee.name else { return nil }
            let sha = withUnsafePointer(to: entry.pointee.oid) { GitLibrary.hex($0) }
            return GitRemoteHead(
                ref: String(cString: name), sha: sha,
                symbolicTarget: entry.pointee.symref_target.map { String(cString: $0) })
        }
    }
}
