import CGit2
import Foundation

/// Owns one `git_repository*`; the pointer never outlives this object and is used by one thread at a time.
final class GitRepositoryHandle {
    let pointer: OpaquePointer
    /// The repository as the user named it, for messages.
    let repository: String

    private init(pointer: OpaquePointer, repository: String) {
        self.pointer = pointer
        self.repository = repository
    }

    deinit { git_repository_free(pointer) }

    /// Opens an existing bare repository (a mirror) at exactly `path`.
    static func openBare(at path: String, repository: String) throws -> GitRepositoryHandle {
        GitLibrary.ensureInitialised()
        var pointer: OpaquePointer?
        try GitLibrary.check(git_repository_open_bare(&pointer, path), "open the mirror", repository: repository)
        guard let pointer else {
            throw GitError.libgit2(operation: "open the mirror", repository: repository, code: -1, message: path)
        }
        return GitRepositoryHandle(pointer: pointer, repository: repository)
    }

    /// Creates an empty bare repository at `path`.
    static func initBare(at path: String, repository: String) throws -> GitRepositoryHandle {
        GitLibrary.ensureInitialised()
        var pointer: OpaquePointer?
        try GitLibrary.check(git_repository_init(&pointer, path, 1), "create the mirror", repository: repository)
        guard let pointer else {
            throw GitError.libgit2(operation: "create the mirror", repository: repository, code: -1, message: path)
        }
        return GitRepositoryHandle(pointer: pointer, repository: repository)
    }

    func check(_ code: Int32, _ operation: @autoclosure () -> String) throws {
        try GitLibrary.check(code, operation(), repository: repository)
    }
}
