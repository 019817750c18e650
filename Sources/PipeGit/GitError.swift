/// Everything that can go wrong while reading a git repository; each message says what happened, where, and what to
/// do next.
public enum GitError: Error, Equatable, CustomStringConvertible {
    /// The repository path does not exist, or is not the root of a git repository.
    case repositoryNotFound(repository: String, reason: String)
    /// libgit2's owner validation refused a local repository that belongs to another user.
    case notOwnedByCurrentUser(repository: String, detail: String)
    /// No branch, tag or commit of that name; `suggestions` are the closest branch and tag names.
    case unknownRef(ref: String, repository: String, suggestions: [String], known: [String])
    /// A short SHA that matches several objects.
    case ambiguousRef(ref: String, repository: String)
    /// The ref names something that is not a commit (a tag of a tree or a blob).
    case notACommit(ref: String, repository: String)
    /// The repository has no commits, so there is nothing to check out.
    case emptyRepository(repository: String)
    /// The folder a work tree should be written to already holds files.
    case destinationNotEmpty(path: String)
    /// The caller's cancellation token fired; nothing was left half-written.
    case cancelled(repository: String, reason: String)
    /// A file-system step around libgit2 failed (creating folders, the mirror lock, renaming the mirror into place).
    case fileSystem(operation: String, path: String, message: String)
    /// A ref asked to be fetched on its own that is not a pull or merge request's head.
    case invalidFetchRef(String, reason: String)
    /// Any other libgit2 failure, with libgit2's own text.
    case libgit2(operation: String, repository: String, code: Int32, message: String)

    public var description: String {
        switch self {
        case .repositoryNotFound(let repository, let reason):
            return "git repository '\(repository)' not found: \(reason). "
                + "Pass the path of a repository's top folder (the one holding .git) or a URL."
        case .notOwnedByCurrentUser(let repository, let detail):
            return "git repository '\(repository)' belongs to another user (\(detail)); Pipe refuses it as git does. "
                + "Run Pipe as that user or, if you trust the folder, mark that exact folder safe with "
                + "`git config --global --add safe.directory <folder>` (this libgit2 does not accept `*`)."
        case .unknownRef(let ref, let repository, let suggestions, let known):
            var text = "no branch, tag or commit '\(ref)' in git repository '\(repository)'."
            if !suggestions.isEmpty {
                text += " Did you mean " + suggestions.map { "'\($0)'" }.joined(separator: " or ") + "?"
            } else if !known.isEmpty {
                text += " It has: " + known.joined(separator: ", ") + "."
            }
            text +=
                " Use a branch, a tag, a full or short commit SHA, or HEAD; a commit must be pushed to a branch "
                + "or tag of that repository before Pipe can see it."
            return text
        case .ambiguousRef(let ref, let repository):
            return "'\(ref)' matches several objects in git repository '\(repository)': give more digits of the SHA."
        case .notACommit(let ref, let repository):
            return "'\(ref)' in git repository '\(repository)' does not name a commit (a tag of a tree or a file?): "
                + "use a branch, a tag of a commit, or a commit SHA."
        case .emptyRepository(let repository):
            return "git repository '\(repository)' has no commits yet: commit something, then run again."
        case .destinationNotEmpty(let path):
            return "cannot check out into '\(path)': the folder is not empty. Give a fresh folder for every run."
        case .cancelled(let repository, let reason):
            return "checkout of '\(repository)' cancelled (\(reason))."
        case .fileSystem(let operation, let path, let message):
            return "could not \(operation) at '\(path)': \(message). Check that the folder is writable and the disk "
                + "has space."
        case .invalidFetchRef(let ref, let reason):
            return "will not fetch '\(ref)': \(reason)."
        case .libgit2(let operation, let repository, let code, let message):
            return "git \(operation) failed for '\(repository)': \(message) (libgit2 error \(code))."
        }
    }
}
