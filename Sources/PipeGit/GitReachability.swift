import CGit2
import PipeCore

/// Whether a commit is reachable from a protected ref of a mirror (`trusted-refs:`): the commit is the ref's own or
/// one of its ancestors, asked of libgit2's commit graph (`git_graph_descendant_of`), never of names or messages.
public enum GitReachability {
    /// The first ref (by name) matching `patterns` from which `commitSHA` is reachable in the mirror, or `nil`.
    public static func firstProtectedRef(
        reaching commitSHA: String, patterns: [TrustedRefPattern], in mirror: GitMirror
    ) throws -> String? {
        let handle = try GitRepositoryHandle.openBare(at: mirror.path.path, repository: mirror.repository)
        return try firstProtectedRef(reaching: commitSHA, patterns: patterns, in: handle)
    }

    static func firstProtectedRef(
        reaching commitSHA: String, patterns: [TrustedRefPattern], in handle: GitRepositoryHandle
    ) throws -> String? {
        guard !patterns.isEmpty else { return nil }
        var commit = git_oid()
        guard git_oid_fromstr(&commit, commitSHA) == 0 else {
            git_error_clear()
            throw GitError.notACommit(ref: commitSHA, repository: handle.repository)
        }
        var array = git_strarray()
        try handle.check(git_reference_list(&array, handle.pointer), "list the mirror's refs")
        // Pipe's own refs (the remote's HEAD) are not the repository's: a pattern never protects them.
        let names = GitLibrary.strings(disposing: &array).filter { name in
            !name.hasPrefix("refs/pipe/") && patterns.contains { $0.matches(fullRef: name) }
        }.sorted()
        for name in names {
            guard var tip = try commitID(ofRef: name, in: handle) else { continue }
            if git_oid_equal(&tip, &commit) != 0 { return name }
            let answer = git_graph_descendant_of(handle.pointer, &tip, &commit)
            try handle.check(min(answer, 0), "ask whether \(name) descends from \(commitSHA.prefix(12))")
            if answer == 1 { return name }
        }
        return nil
    }

    /// The commit a ref leads to (through symbolic refs and annotated tags); `nil` for a tag of a tree or a blob.
    private static func commitID(ofRef name: String, in handle: GitRepositoryHandle) throws -> git_oid? {
        var reference: OpaquePointer?
        try handle.check(git_reference_lookup(&reference, handle.pointer, name), "read ref \(name)")
        defer { git_reference_free(reference) }
        var object: OpaquePointer?
        guard git_reference_peel(&object, reference, GIT_OBJECT_COMMIT) == 0, let id = git_object_id(object) else {
            git_error_clear()
            return nil
        }
        defer { git_object_free(object) }
        return id.pointee
    }
}
