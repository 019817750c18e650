/// What turns the host's cached copy of a workspace (its manifest) into the local one: paths to delete first, then
/// entries to write. Deleting first lets a folder become a file (or a link) and back; a deleted folder goes with
/// everything in it, so its contents are not listed.
struct WorkspaceDelta: Equatable {
    /// Paths to remove from the cached tree, a folder before anything else at or under it never listed twice.
    var deletions: [String]
    /// Entries to write (new, or different in kind, mode, size or content), in path order: a parent first.
    var sends: [WorkspaceManifest.Entry]

    init(from old: [WorkspaceManifest.Entry], to new: [WorkspaceManifest.Entry]) {
        // One dictionary of positions: 10,000 entries hashed once each way, nothing copied.
        var oldIndex = [String: Int](minimumCapacity: old.count)
        for (index, entry) in old.enumerated() { oldIndex[entry.path] = index }
        var newForOld = [Int](repeating: -1, count: old.count)
        var oldForNew = [Int](repeating: -1, count: new.count)
        for (index, entry) in new.enumerated() {
            if let previous = oldIndex[entry.path] {
                newForOld[previous] = index
                oldForNew[index] = previous
            }
        }
        var deletedFolders = Set<String>()
        var deleted = [Bool](repeating: false, count: old.count)
        var deletions = [String]()
        var sends = [WorkspaceManifest.Entry]()
        // Through buffer pointers: a subscript of an array of entries copies the entry (its strings retained).
        old.withUnsafeBufferPointer { old in
            new.withUnsafeBufferPointer { new in
                for index in old.indices {
                    if Self.isInside(old[index].path, anyOf: deletedFolders) {
                        deleted[index] = true
                        continue
                    }
                    let replacement = newForOld[index]
                    // A link is replaced by deleting it first: tar implementations differ on writing over a link.
                    let stays =
                        replacement >= 0 && new[replacement].kind == old[index].kind
                        && (old[index].kind != .symlink || new[replacement].digest == old[index].digest)
                    if !stays {
                        deletions.append(old[index].path)
                        deleted[index] = true
                        if old[index].kind == .directory { deletedFolders.insert(old[index].path) }
                    }
                }
                for index in new.indices {
                    let previous = oldForNew[index]
                    if previous < 0 || deleted[previous] || Self.isInside(new[index].path, anyOf: deletedFolders)
                        || !old[previous].sameContent(as: new[index])
                    {
                        sends.append(new[index])
                    }
                }
            }
        }
        self.deletions = deletions
        self.sends = sends
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
