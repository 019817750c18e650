import Foundation

/// Who owns a folder, for the owner-validation errors (libgit2 1.5.1 does not say so itself).
enum FileOwner {
    /// Says who owns the folder (or its `.git`) when that is not the user Pipe runs as.
    static func foreignOwner(of path: String) -> String? {
        for candidate in [path, path + "/.git"] {
            guard let attributes = try? FileManager.default.attributesOfItem(atPath: candidate),
                let owner = (attributes[.ownerAccountID] as? NSNumber)?.uint32Value, owner != geteuid()
            else { continue }
            let name = (attributes[.ownerAccountName] as? String).map { " (\($0))" } ?? ""
            return "'\(candidate)' belongs to uid \(owner)\(name), Pipe runs as uid \(geteuid())"
        }
        return nil
    }
}
