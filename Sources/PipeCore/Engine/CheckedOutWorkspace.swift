import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// The workspace folder of a checkout, taken as it is: the checked-out commit is untrusted, and a workspace that is a
/// link, or is reached through one, would upload whatever folder of the coordinator the link names.
enum CheckedOutWorkspace {
    /// The workspace folder `relativePath` inside `workTree`, every component a real folder (never a link).
    ///
    /// - Throws: `RequestError` naming the component at fault and what to change: the run ends before any layer.
    static func locate(_ relativePath: String, in workTree: URL, commit: String, pipelineFile: String) throws -> URL {
        let components = relativePath.split(separator: "/").filter { $0 != "." }
        guard !components.contains("..") else {
            throw RequestError(
                "the workspace folder '\(relativePath)' leaves the checkout ('..'); fix `repository.workspace` in "
                    + pipelineFile)
        }
        var current = workTree
        for component in components {
            current = current.appendingPathComponent(String(component))
            var info = stat()
            guard lstat(current.path, &info) == 0 else {
                throw RequestError(
                    "the workspace folder '\(relativePath)' does not exist at commit \(commit.prefix(12)); fix "
                        + "`repository.workspace` in \(pipelineFile)")
            }
            let shown = relativePathInCheckout(current, workTree)
            if info.st_mode & S_IFMT == S_IFLNK {
                let target = (try? FileManager.default.destinationOfSymbolicLink(atPath: current.path)) ?? "?"
                throw RequestError(
                    "the workspace folder '\(relativePath)' passes through a symbolic link at commit "
                        + "\(commit.prefix(12)): '\(shown)' -> '\(target)'. Pipe never follows a link out of the "
                        + "checkout; make `repository.workspace` in \(pipelineFile) name a real folder, or replace the "
                        + "link in the repository with the folder itself")
            }
            guard info.st_mode & S_IFMT == S_IFDIR else {
                throw RequestError(
                    "the workspace folder '\(relativePath)' is not a folder at commit \(commit.prefix(12)) ('\(shown)' "
                        + "is a file); fix `repository.workspace` in \(pipelineFile)")
            }
        }
        return current
    }

    private static func relativePathInCheckout(_ url: URL, _ workTree: URL) -> String {
        String(url.path.dropFirst(workTree.path.count).drop { $0 == "/" })
    }
}
