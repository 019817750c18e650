import CGit2
import Foundation
import PipeBasics

/// Where a repository lives, as the user gave it: a URL (`https://…`, `ssh://…`, `file://…`, scp-like
/// `user@host:path`) or a local path (absolute, or relative to the current folder).
struct GitRepositoryLocation: Equatable {
    /// The text the user gave, for messages.
    let original: String
    /// What libgit2 is given to fetch from.
    let remoteURL: String
    /// The absolute, symlink-free folder for a local repository; nil for a network URL.
    let localPath: String?

    /// Parses and, for a local repository, checks that it exists and is a repository's top folder.
    static func parse(_ repository: String) throws -> GitRepositoryLocation {
        let trimmed = repository.trimmingCharacters(in: .whitespacesAndNewlines)
        guard !trimmed.isEmpty else {
            throw GitError.repositoryNotFound(repository: repository, reason: "the repository is empty text")
        }
        if trimmed.hasPrefix("file://") {
            let path = URL(string: trimmed)?.path ?? String(trimmed.dropFirst("file://".count))
            return try local(path: path, original: repository)
        }
        if trimmed.contains("://") || isScpLike(trimmed) {
            return GitRepositoryLocation(original: repository, remoteURL: trimmed, localPath: nil)
        }
        return try local(path: trimmed, original: repository)
    }

    /// git's rule: a colon before any slash makes `host:path` an SSH address (`./a:b` stays a path).
    private static func isScpLike(_ text: String) -> Bool {
        guard let colon = text.firstIndex(of: ":") else { return false }
        let beforeColon = text[..<colon]
        return !beforeColon.isEmpty && !beforeColon.contains("/")
    }

    private static func local(path: String, original: String) throws -> GitRepositoryLocation {
        let absolute = URL(fileURLWithPath: path).standardizedFileURL.resolvingSymlinksInPath().path
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: absolute, isDirectory: &isDirectory) else {
            throw GitError.repositoryNotFound(repository: original, reason: "no such folder '\(absolute)'")
        }
        guard isDirectory.boolValue else {
            throw GitError.repositoryNotFound(repository: original, reason: "'\(absolute)' is a file, not a folder")
        }
        GitLibrary.ensureInitialised()
        // Opened for real (a NULL out-pointer skips owner validation); NO_SEARCH because libgit2's local transport
        // opens exactly this folder.
        var handle: OpaquePointer?
        let code = git_repository_open_ext(&handle, absolute, GIT_REPOSITORY_OPEN_NO_SEARCH.rawValue, nil)
        git_repository_free(handle)
        if code < 0 {
            let message = GitLibrary.lastErrorMessage(code: code)
            // libgit2 1.5.1 reports a foreign owner as "config value 'safe.directory' was not found" (-3) unless
            // safe.directory is set at all, so ownership is checked here rather than read from its error.
            if let owner = FileOwner.foreignOwner(of: absolute) {
                throw GitError.notOwnedByCurrentUser(repository: original, detail: owner)
            }
            if code == GIT_ENOTFOUND.rawValue {
                throw GitError.repositoryNotFound(repository: original, reason: notARepositoryReason(absolute))
            }
            throw GitError.libgit2(operation: "open", repository: original, code: code, message: message)
        }
        return GitRepositoryLocation(original: original, remoteURL: absolute, localPath: absolute)
    }

    /// Names the enclosing repository's top folder when the path is inside one, since that is the likely intent.
    private static func notARepositoryReason(_ path: String) -> String {
        var buffer = git_buf()
        defer { git_buf_dispose(&buffer) }
        guard git_repository_discover(&buffer, path, 0, nil) == 0, let found = buffer.ptr else {
            return "'\(path)' is not a git repository"
        }
        var top = URL(fileURLWithPath: String(cString: found)).standardizedFileURL
        if top.lastPathComponent == ".git" { top.deleteLastPathComponent() }
        return "'\(path)' is inside the git repository '\(top.path)', not its top folder"
    }

    /// The mirror's folder name: readable, and unique per repository (a digest of the location).
    var mirrorFolderName: String {
        let key = localPath.map { "file://" + $0 } ?? remoteURL
        var base = URL(fileURLWithPath: remoteURL.trimmingCharacters(in: CharacterSet(charactersIn: "/")))
            .lastPathComponent
        if base.hasSuffix(".git") { base = String(base.dropLast(4)) }
        let readable = String(
            base.unicodeScalars.map { scalar -> Character in
                let allowed =
                    CharacterSet.alphanumerics.contains(scalar) && scalar.isASCII
                    || "-_.".unicodeScalars.contains(scalar)
                return allowed ? Character(scalar) : "_"
            }.prefix(40))
        let digest = SHA256Digest.hex(of: Data(key.utf8)).prefix(16)
        return (readable.isEmpty ? "repository" : readable) + "-" + digest + ".git"
    }
}
