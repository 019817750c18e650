import CGit2
import Foundation

/// Writes one commit's files into a fresh folder: exactly what the commit holds (mode bits and symlinks included),
/// with no `.git` and nothing else.
enum GitTreeExport {
    static func write(commitSHA: String, from mirror: GitRepositoryHandle, into folder: URL) throws {
        let created = try prepareEmptyFolder(folder)
        do {
            try checkout(commitSHA: commitSHA, from: mirror, into: folder)
        } catch {
            // Leave nothing that looks like a work tree behind.
            if created {
                try? FileManager.default.removeItem(at: folder)
            } else {
                let children = (try? FileManager.default.contentsOfDirectory(atPath: folder.path)) ?? []
                for child in children { try? FileManager.default.removeItem(at: folder.appendingPathComponent(child)) }
            }
            throw error
        }
    }

    /// Creates the folder, or accepts an existing empty one. Returns whether it was created here.
    private static func prepareEmptyFolder(_ folder: URL) throws -> Bool {
        let manager = FileManager.default
        var isDirectory: ObjCBool = false
        if manager.fileExists(atPath: folder.path, isDirectory: &isDirectory) {
            let children = (try? manager.contentsOfDirectory(atPath: folder.path)) ?? ["?"]
            guard isDirectory.boolValue, children.isEmpty else { throw GitError.destinationNotEmpty(path: folder.path) }
            return false
        }
        do {
            try manager.createDirectory(at: folder, withIntermediateDirectories: true)
        } catch {
            throw GitError.fileSystem(operation: "create the work tree folder", path: folder.path, message: "\(error)")
        }
        return true
    }

    private static func checkout(commitSHA: String, from mirror: GitRepositoryHandle, into folder: URL) throws {
        var oid = git_oid()
        try mirror.check(git_oid_fromstr(&oid, commitSHA), "read commit id \(commitSHA)")
        var commit: OpaquePointer?
        try mirror.check(git_commit_lookup(&commit, mirror.pointer, &oid), "read commit \(commitSHA)")
        defer { git_commit_free(commit) }
        var tree: OpaquePointer?
        try mirror.check(git_commit_tree(&tree, commit), "read the tree of commit \(commitSHA)")
        defer { git_tree_free(tree) }

        // An empty baseline makes every file of the commit "new", so each is written; the mirror's own (absent)
        // index is neither read for decisions nor written, so concurrent exports from one mirror do not interfere.
        var baseline: OpaquePointer?
        try mirror.check(git_index_new(&baseline), "prepare an empty index")
        defer { git_index_free(baseline) }

        var options = git_checkout_options()
        try mirror.check(
            git_checkout_options_init(&options, UInt32(GIT_CHECKOUT_OPTIONS_VERSION)), "prepare the checkout")
        options.checkout_strategy =
            GIT_CHECKOUT_FORCE.rawValue | GIT_CHECKOUT_RECREATE_MISSING.rawValue
            | GIT_CHECKOUT_DONT_UPDATE_INDEX.rawValue | GIT_CHECKOUT_DONT_WRITE_INDEX.rawValue
        options.baseline_index = baseline
        let code = folder.path.withCString { target -> Int32 in
            options.target_directory = target
            return git_checkout_tree(mirror.pointer, tree, &options)
        }
        try mirror.check(code, "write the files of commit \(commitSHA) into \(folder.path)")
    }
}
