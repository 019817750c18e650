/// What turns the host's cached copy of a workspace (its manifest) into the local one: paths to delete first, then
/// entries to write. Deleting first lets a folder become a file (or a link) and back; a deleted folder goes with
/// everything in it, so its contents are not listed.
struct WorkspaceDelta: Equatable {
    /// Paths to remove from the cached tree, a folder before anything else at or under it never listed twice.
    var deletions: [String]
    /// Entries to write (new, or different in kind, mode, size or content), in path order: a parent first.
    var sends: [WorkspaceManifest.Entry]

    init(from old: [WorkspaceManifest.Entry], to new: [WorkspaceManifest.Entry]) {
        var newByPath = [String: WorkspaceManifest.Entry](minimumCapacity: new.count)
        for entry in new { newByPath[entry.path] = entry }
        var oldByPath = [String: WorkspaceManifest.Entry](minimumCapacity: old.count)
        var deletedFolders = Set<String>()
        var deletions = [String]()
        for entry in old {
            oldByPath[entry.path] = entry
            if Self.isInside(entry.path, anyOf: deletedFolders) { continue }
            let replacement = newByPath[entry.path]
            // A link is replaced by deleting it first: tar implementations differ on writing over an existing link.
            let stays =
                replacement.map { $0.kind == entry.kind && (entry.kind != .symlink || $0.digest == entry.digest) }
                ?? false
            if !stays {
                deletions.append(entry.path)
                if entry.kind == .directory { deletedFolders.insert(entry.path) }
            }
        }
        self.deletions = deletions
        let deleted = Set(deletions)
        sends = new.filter { entry in
            if deleted.contains(entry.path) || Self.isInside(entry.path, anyOf: deletedFolders) { return true }
            guard let previous = oldByPath[entry.path] else { return true }
            return !previous.sameContent(as: entry)
        }
    }

    private static func isInside(_ path: String, anyOf folders: Set<String>) -> Bool {
        guard !folders.isEmpty else { return false }
        var index = path.endIndex
        while let slash = path[..<index].lastIndex(of: "/") {
            if folders.contains(String(path[..<slash])) { return true }
            index = slash
        }
        return false
    }
}
