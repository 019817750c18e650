import CGit2
import Foundation

/// Process-wide libgit2 setup and the one place where libgit2 return codes become `GitError`s.
enum GitLibrary {
    /// Runs once per process however many threads ask (Swift initialises globals and static lets exactly once).
    private static let initialised: Void = {
        git_libgit2_init()
        // What a checkout does must not depend on machine-wide settings, so /etc/gitconfig is not read.
        _ = pipe_git_set_search_path_none()
    }()

    static func ensureInitialised() {
        _ = initialised
    }

    /// libgit2's message for the call that just failed. Read immediately: the next libgit2 call may replace it.
    static func lastErrorMessage(code: Int32) -> String {
        guard let error = git_error_last(), let message = error.pointee.message else {
            return "libgit2 returned \(code) without a message"
        }
        return String(cString: message).trimmingCharacters(in: .whitespacesAndNewlines)
    }

    /// Throws a `GitError` for a negative libgit2 return code, with the error text read right after the call.
    static func check(_ code: Int32, _ operation: @autoclosure () -> String, repository: String) throws {
        guard code < 0 else { return }
        throw error(code: code, operation: operation(), repository: repository)
    }

    static func error(code: Int32, operation: String, repository: String) -> GitError {
        let message = lastErrorMessage(code: code)
        if code == GIT_EOWNER.rawValue {
            return .notOwnedByCurrentUser(repository: repository, detail: message)
        }
        return .libgit2(operation: operation, repository: repository, code: code, message: message)
    }

    /// The 40 lowercase hex digits of an object id.
    static func hex(_ oid: UnsafePointer<git_oid>) -> String {
        var buffer = [CChar](repeating: 0, count: 41)
        buffer.withUnsafeMutableBufferPointer { pointer in
            _ = git_oid_fmt(pointer.baseAddress, oid)
        }
        return String(cString: buffer)
    }

    /// The strings of a `git_strarray`, which is disposed of afterwards.
    static func strings(disposing array: inout git_strarray) -> [String] {
        defer { git_strarray_dispose(&array) }
        guard let strings = array.strings else { return [] }
        return (0..<array.count).compactMap { index in strings[index].map { String(cString: $0) } }
    }
}
