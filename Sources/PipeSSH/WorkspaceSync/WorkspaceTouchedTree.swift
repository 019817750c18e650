/// What changed in a build cache's tree since its last sync, as the host lists it, and what that means for the
/// next sync (`RemoteScript.syncWorkspace`, in place).
///
/// A build cache's tree is used in place by a run (`BuildCachePlace.tree`): its build and tests may create, change
/// or remove files there. The host lists, with `find -cnewer` against the mark the last sync left, every entry whose
/// status changed since (`touched`: created, written, moved, chmod'ed; a change time cannot be set back by the
/// account), and the entries of each touched folder (`children`), as NUL-separated `./path` records. From these
/// the next sync makes the tree match the commit exactly: whatever is not in the commit goes, whatever changed is
/// sent again, whatever went missing is sent again; untouched entries keep their modification times, which is what
/// keeps Xcode's incremental build incremental.
struct WorkspaceTouchedTree: Equatable {
    /// Relative paths (`""` is the tree itself).
    var touched: [String]
    /// Relative paths of the entries inside touched folders.
    var children: [String]

    /// Reads the host's two lists; `nil` when a record is not a `./` path inside the tree.
    init?(touched: ArraySlice<UInt8>, children: ArraySlice<UInt8>) {
        guard let touched = Self.paths(touched), let children = Self.paths(children) else { return nil }
        self.touched = touched
        self.children = children
    }

    init(touched: [String], children: [String]) {
        self.touched = touched
        self.children = children
    }

    /// The host's entries less those the run changed or removed (so they are sent again), and the paths to delete
    /// on the host before the archive is unpacked (what changed, and what the commit does not hold).
    func apply(toHost host: [WorkspaceManifest.Entry], local: [WorkspaceManifest.Entry]) -> (
        host: [WorkspaceManifest.Entry], deletions: [String]
    ) {
        guard !touched.isEmpty else { return (host, []) }
        var hostKinds = [String: WorkspaceManifest.Kind](minimumCapacity: host.count)
        var hostChildren = [String: [String]]()
        for entry in host {
            hostKinds[entry.path] = entry.kind
            hostChildren[Self.parent(of: entry.path), default: []].append(entry.path)
        }
        var localKinds = [String: WorkspaceManifest.Kind](minimumCapacity: local.count)
        for entry in local { localKinds[entry.path] = entry.kind }
        let present = Set(children)
        var dropped = Set<String>()
        var deletions = [String]()
        for path in touched {
            let isFolderInBoth = path.isEmpty || (hostKinds[path] == .directory && localKinds[path] == .directory)
            if !isFolderInBoth {
                // Changed, created, or not in the commit: it goes, and comes again if the commit has it.
                if dropped.insert(path).inserted { deletions.append(path) }
                continue
            }
            // A folder whose entries changed: what the host's manifest has there and the tree lost comes again.
            for child in hostChildren[path] ?? [] where !present.contains(child) {
                if dropped.insert(child).inserted { deletions.append(child) }
            }
        }
        guard !dropped.isEmpty else { return (host, []) }
        let kept = host.filter { entry in !Self.isAtOrInside(entry.path, anyOf: dropped) }
        return (kept, deletions)
    }

    private static func paths(_ bytes: ArraySlice<UInt8>) -> [String]? {
        var paths: [String] = []
        for record in bytes.split(separator: 0, omittingEmptySubsequences: true) {
            let text = String(decoding: record, as: UTF8.self)
            if text == "." {
                paths.append("")
                continue
            }
            guard text.hasPrefix("./") else { return nil }
            let path = String(text.dropFirst(2))
            let parts = path.split(separator: "/", omittingEmptySubsequences: false)
            guard !path.isEmpty, !parts.contains(where: { $0.isEmpty || $0 == "." || $0 == ".." }) else { return nil }
            paths.append(path)
        }
        return paths
    }

    private static func parent(of path: String) -> String {
        guard let slash = path.lastIndex(of: "/") else { return "" }
        return String(path[..<slash])
    }

    private static func isAtOrInside(_ path: String, anyOf folders: Set<String>) -> Bool {
        var current = Substring(path)
        while true {
            if folders.contains(String(current)) { return true }
            guard let slash = current.lastIndex(of: "/") else { return false }
            current = current[..<slash]
        }
    }
}
