import CGit2
import Foundation
import PipeBasics

/// Turns what a person types as a ref into one commit of a mirror, the way `git rev-parse` reads it.
///
/// Order: `HEAD` (the remote's, as last fetched); a full 40-digit SHA; a ref name by git's rules (`refs/x`,
/// `refs/tags/x`, `refs/heads/x`, `refs/remotes/x`, `refs/remotes/x/HEAD`), where `origin/x` also finds branch `x`
/// of the remote itself (the mirror *is* origin); a short SHA of at least 4 digits; then any other revision
/// expression (`main~1`, `v1.0^{commit}`).
struct GitRefResolver {
    let mirror: GitRepositoryHandle

    private var repository: String { mirror.repository }

    func resolve(_ ref: String) throws -> ResolvedCommit {
        let ref = ref.trimmingCharacters(in: .whitespacesAndNewlines)
        if ref == "HEAD" { return try resolveRemoteHead() }
        if ref.count == 40, Self.isHex(ref) {
            var oid = git_oid()
            if git_oid_fromstr(&oid, ref) == 0 {
                var object: OpaquePointer?
                if git_object_lookup(&object, mirror.pointer, &oid, GIT_OBJECT_ANY) == 0 {
                    defer { git_object_free(object) }
                    return ResolvedCommit(sha: try commitSHA(peeling: object, ref: ref), resolvedRef: ref.lowercased())
                }
            }
            throw unknown(ref)
        }
        if !ref.isEmpty, let found = try lookupByName(ref) { return found }
        if ref.count >= 4, Self.isHex(ref), let found = try lookupShortSHA(ref) { return found }
        if !ref.isEmpty, let found = try lookupRevision(ref) { return found }
        throw unknown(ref)
    }

    private func resolveRemoteHead() throws -> ResolvedCommit {
        guard let head = try lookupReference(GitMirror.remoteHeadRef, ref: "HEAD") else { throw unknown("HEAD") }
        // Report the branch HEAD names when it still points at the same commit, else plain HEAD (detached).
        var name = "HEAD"
        var symbolic: OpaquePointer?
        if git_reference_lookup(&symbolic, mirror.pointer, "HEAD") == 0,
            let target = git_reference_symbolic_target(symbolic).map({ String(cString: $0) }),
            let branch = try? lookupReference(target, ref: "HEAD"), branch.sha == head.sha
        {
            name = target
        }
        git_reference_free(symbolic)
        git_error_clear()
        return ResolvedCommit(sha: head.sha, resolvedRef: name)
    }

    private func lookupByName(_ ref: String) throws -> ResolvedCommit? {
        var candidates: [String]
        if ref.hasPrefix("refs/") {
            candidates = [ref]
        } else {
            candidates = [
                "refs/\(ref)", "refs/tags/\(ref)", "refs/heads/\(ref)", "refs/remotes/\(ref)",
                "refs/remotes/\(ref)/HEAD",
            ]
            if ref.hasPrefix("origin/") { candidates.append("refs/heads/" + ref.dropFirst("origin/".count)) }
        }
        for candidate in candidates where !candidate.hasPrefix("refs/pipe/") {
            if let found = try lookupReference(candidate, ref: ref) { return found }
        }
        return nil
    }

    /// The commit a reference (direct, symbolic or an annotated tag) leads to; nil when there is no such reference.
    private func lookupReference(_ name: String, ref: String) throws -> ResolvedCommit? {
        var reference: OpaquePointer?
        let code = git_reference_lookup(&reference, mirror.pointer, name)
        if code == GIT_ENOTFOUND.rawValue || code == GIT_EINVALIDSPEC.rawValue {
            git_error_clear()
            return nil
        }
        try mirror.check(code, "read ref \(name)")
        defer { git_reference_free(reference) }
        var object: OpaquePointer?
        guard git_reference_peel(&object, reference, GIT_OBJECT_COMMIT) == 0 else {
            git_error_clear()
            throw GitError.notACommit(ref: ref, repository: repository)
        }
        defer { git_object_free(object) }
        guard let id = git_object_id(object) else { throw GitError.notACommit(ref: ref, repository: repository) }
        return ResolvedCommit(sha: GitLibrary.hex(id), resolvedRef: name)
    }

    private func lookupShortSHA(_ ref: String) throws -> ResolvedCommit? {
        var oid = git_oid()
        guard git_oid_fromstrn(&oid, ref, ref.utf8.count) == 0 else {
            git_error_clear()
            return nil
        }
        var object: OpaquePointer?
        let code = git_object_lookup_prefix(&object, mirror.pointer, &oid, ref.utf8.count, GIT_OBJECT_ANY)
        if code == GIT_ENOTFOUND.rawValue {
            git_error_clear()
            return nil
        }
        if code == GIT_EAMBIGUOUS.rawValue {
            git_error_clear()
            throw GitError.ambiguousRef(ref: ref, repository: repository)
        }
        try mirror.check(code, "look up \(ref)")
        defer { git_object_free(object) }
        let sha = try commitSHA(peeling: object, ref: ref)
        return ResolvedCommit(sha: sha, resolvedRef: sha)
    }

    /// Anything else `git rev-parse` understands (`main~1`, `v1^{commit}`); nil when libgit2 does not either.
    private func lookupRevision(_ ref: String) throws -> ResolvedCommit? {
        var object: OpaquePointer?
        let code = git_revparse_single(&object, mirror.pointer, ref)
        if code == GIT_EAMBIGUOUS.rawValue {
            git_error_clear()
            throw GitError.ambiguousRef(ref: ref, repository: repository)
        }
        guard code == 0 else {
            git_error_clear()
            return nil
        }
        defer { git_object_free(object) }
        return ResolvedCommit(sha: try commitSHA(peeling: object, ref: ref), resolvedRef: ref)
    }

    private func commitSHA(peeling object: OpaquePointer?, ref: String) throws -> String {
        var commit: OpaquePointer?
        guard git_object_peel(&commit, object, GIT_OBJECT_COMMIT) == 0, let id = git_object_id(commit) else {
            git_error_clear()
            throw GitError.notACommit(ref: ref, repository: repository)
        }
        defer { git_object_free(commit) }
        return GitLibrary.hex(id)
    }

    // MARK: - Suggestions

    /// An unknown-ref error naming the closest branch and tag names, up to three, by edit distance; an
    /// empty-repository error when there is no branch or tag at all.
    private func unknown(_ ref: String) -> GitError {
        let names = knownNames()
        if names.isEmpty { return .emptyRepository(repository: repository) }
        var suggestions: [String] = []
        var remaining = names
        while suggestions.count < 3, let nearest = EditDistance.nearest(to: ref, in: remaining) {
            suggestions.append(nearest)
            remaining.removeAll { $0 == nearest }
        }
        let known = Array(names.prefix(12)) + (names.count > 12 ? ["… (\(names.count - 12) more)"] : [])
        return .unknownRef(ref: ref, repository: repository, suggestions: suggestions, known: known)
    }

    /// Branch names, then `origin/…` names, then tag names, each sorted, without `refs/…` prefixes.
    func knownNames() -> [String] {
        var array = git_strarray()
        guard git_reference_list(&array, mirror.pointer) == 0 else {
            git_error_clear()
            return []
        }
        let all = GitLibrary.strings(disposing: &array)
        func names(under prefix: String) -> [String] {
            all.filter { $0.hasPrefix(prefix) && !$0.hasSuffix("/HEAD") }.map { String($0.dropFirst(prefix.count)) }
                .sorted()
        }
        return names(under: "refs/heads/") + names(under: "refs/remotes/") + names(under: "refs/tags/")
    }

    private static func isHex(_ text: String) -> Bool {
        text.unicodeScalars.allSatisfy { CharacterSet(charactersIn: "0123456789abcdefABCDEF").contains($0) }
    }
}
