/// `PipeGit`: libgit2 behind a small Swift API — check a repository out at a ref, resolve refs to commits through a
/// per-repository bare mirror, and list a remote's heads for polling.
///
/// Entry points: `GitCheckout`, `GitMirror`, `GitRemoteHeads`; every failure is a `GitError`.
///
/// Thread rule: every call blocks (disk and network work inside libgit2) and must run on a dedicated thread, not on
/// Swift's cooperative pool. Calls on different threads are safe: each opens its own libgit2 handles, and work on
/// the same mirror is serialised by a lock file.
///
/// Owner validation (libgit2's answer to CVE-2022-24765) stays **on**: a local repository owned by another user is
/// refused with `GitError.notOwnedByCurrentUser`, as `git` itself refuses it. Pipe opens only repositories it was
/// told to, but a checkout of someone else's folder is exactly the case where that protection should speak; the
/// error says how to proceed (run as the owner, or mark the folder with `git config --global --add safe.directory`).
/// The system-wide git configuration (`/etc/gitconfig`) is not read, so a checkout does not change with machine-wide
/// settings; the user's own `~/.gitconfig` is (that is where `safe.directory` goes).
public enum PipeGitModule {}
