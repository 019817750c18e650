import Foundation
import PipeBasics
import PipeCore

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Lists a local workspace folder for `WorkspaceManifest` with plain POSIX calls (Foundation's `FileManager` costs
/// ~10× more per file), never following a symlink: a link is recorded as a link, whatever it points at, so nothing
/// outside the workspace is ever read or sent.
enum WorkspaceScanner {
    /// A local file the sync cannot carry, or a read that failed.
    struct Failure: Error {
        var message: String
    }

    /// Every folder, file and symlink under `root` (not `root` itself), a folder before what is in it (not sorted
    /// otherwise: nothing needs it, and sorting 10,000 paths cost more than listing them), digests not yet computed
    /// (symlinks excepted: their target is at hand).
    static func entries(under root: URL) throws -> [WorkspaceManifest.Entry] {
        var entries = [WorkspaceManifest.Entry]()
        try walk(root.path, relative: "", into: &entries)
        return entries
    }

    private static func walk(_ directory: String, relative: String, into entries: inout [WorkspaceManifest.Entry])
        throws
    {
        guard let stream = opendir(directory) else {
            throw Failure(message: "cannot list \(directory): \(String(cString: strerror(errno)))")
        }
        defer { closedir(stream) }
        var folders = [(String, String)]()
        while let item = readdir(stream) {
            let name = withUnsafeBytes(of: item.pointee.d_name) { bytes in
                String(cString: bytes.baseAddress!.assumingMemoryBound(to: CChar.self))
            }
            if name == "." || name == ".." { continue }
            let path = directory + "/" + name
            let relativePath = relative.isEmpty ? name : relative + "/" + name
            var info = stat()
            guard lstat(path, &info) == 0 else {
                throw Failure(message: "cannot read \(path): \(String(cString: strerror(errno)))")
            }
            let mode = UInt32(info.st_mode) & 0o7777
            switch UInt32(info.st_mode) & UInt32(S_IFMT) {
            case UInt32(S_IFDIR):
                entries.append(.init(path: relativePath, kind: .directory, mode: mode, size: 0, digest: "-"))
                folders.append((path, relativePath))
            case UInt32(S_IFREG):
                entries.append(
                    .init(
                        path: relativePath, kind: .file, mode: mode, size: Int64(info.st_size), digest: "",
                        stamp: WorkspaceDigestCache.Stamp(path: path, info)))
            case UInt32(S_IFLNK):
                let target = try linkTarget(path)
                entries.append(
                    .init(
                        path: relativePath, kind: .symlink, mode: 0o777, size: Int64(target.utf8.count),
                        digest: WorkspaceDigest.of(Array(target.utf8))))
            default:
                throw Failure(
                    message: "\(path) is neither a file, a folder nor a symlink (a socket, FIFO or device); "
                        + "a workspace cannot carry it: remove it from the workspace")
            }
        }
        for (path, relativePath) in folders {
            try walk(path, relative: relativePath, into: &entries)
        }
    }

    static func linkTarget(_ path: String) throws -> String {
        var buffer = [CChar](repeating: 0, count: Int(PATH_MAX) + 1)
        let count = readlink(path, &buffer, buffer.count - 1)
        guard count >= 0 else {
            throw Failure(message: "cannot read the symlink \(path): \(String(cString: strerror(errno)))")
        }
        buffer[count] = 0
        return String(cString: buffer)
    }

    /// Fills in the digest of every file, on as many threads as there are cores.
    static func digestFiles(_ entries: inout [WorkspaceManifest.Entry], under root: URL) throws {
        for index in entries.indices where entries[index].kind == .file && entries[index].digest.isEmpty {
            if let stamp = entries[index].stamp, let known = WorkspaceDigestCache.shared.digest(for: stamp) {
                entries[index].digest = known
            }
        }
        let files = entries.indices.filter { entries[$0].kind == .file && entries[$0].digest.isEmpty }
        guard !files.isEmpty else { return }
        let workers = max(1, min(ProcessInfo.processInfo.activeProcessorCount, 8))
        var digests = [String](repeating: "", count: files.count)
        let lock = NSLock()
        var firstFailure: Error?
        let paths = files.map { root.path + "/" + entries[$0].path }
        let sizes = files.map { entries[$0].size }
        digests.withUnsafeMutableBufferPointer { results in
            DispatchQueue.concurrentPerform(iterations: workers) { worker in
                let reader = WorkspaceFileReader()
                var index = worker
                while index < paths.count {
                    do {
                        results[index] = try reader.digest(ofFileAt: paths[index], expectedSize: sizes[index])
                    } catch {
                        lock.lock()
                        if firstFailure == nil { firstFailure = error }
                        lock.unlock()
                        return
                    }
                    index += workers
                }
            }
        }
        if let firstFailure { throw firstFailure }
        for (position, index) in files.enumerated() {
            entries[index].digest = digests[position]
            if let stamp = entries[index].stamp { WorkspaceDigestCache.shared.remember(digests[position], for: stamp) }
        }
    }
}
