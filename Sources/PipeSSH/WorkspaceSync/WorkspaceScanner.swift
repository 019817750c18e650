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
        let listedAt = Int(time(nil))
        let rootFolder = try openFolder(AT_FDCWD, root.path, display: root.path)
        defer { close(rootFolder) }
        let folders = try list(rootFolder, display: root.path, relative: "", listedAt: listedAt, into: &entries)
        // The top-level folders' trees on as many threads as there are cores (most of the time is the kernel's
        // `fstatat`), each into its own list, joined in order: still a folder before what is in it.
        let subtrees = SubtreeResults(count: folders.count)
        let workers = max(1, min(ProcessInfo.processInfo.activeProcessorCount, 4, folders.count))
        DispatchQueue.concurrentPerform(iterations: workers) { _ in
            while let index = subtrees.claim() {
                let (name, relative) = folders[index]
                var list = [WorkspaceManifest.Entry]()
                do {
                    let display = root.path + "/" + name
                    try walk(
                        try openFolder(rootFolder, name, display: display), display: display, relative: relative,
                        listedAt: listedAt, into: &list)
                    subtrees.set(index, .success(list))
                } catch {
                    subtrees.set(index, .failure(error))
                }
            }
        }
        for result in subtrees.results { entries += try result.get() }
        return entries
    }

    /// Opens a folder listed as one, never through a symlink (`O_NOFOLLOW`: it must still be a folder).
    private static func openFolder(_ parent: Int32, _ name: String, display: String) throws -> Int32 {
        let folder = openat(parent, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)
        guard folder >= 0 else { throw Failure(message: "cannot list \(display): \(String(cString: strerror(errno)))") }
        return folder
    }

    /// Lists the folder open as `descriptor` and everything under it (the descriptor is closed on return).
    private static func walk(
        _ descriptor: Int32, display: String, relative: String, listedAt: Int,
        into entries: inout [WorkspaceManifest.Entry]
    ) throws {
        defer { close(descriptor) }
        let folders = try list(descriptor, display: display, relative: relative, listedAt: listedAt, into: &entries)
        // Opened one at a time: a folder of thousands of folders must not hold thousands of descriptors.
        for (name, relativePath) in folders {
            let display = display + "/" + name
            try walk(
                try openFolder(descriptor, name, display: display), display: display, relative: relativePath,
                listedAt: listedAt, into: &entries)
        }
    }

    /// Lists the folder open as `descriptor` (not what is in its folders: it returns those): every call relative
    /// to it (`fstatat`, `readlinkat`), so the kernel resolves one name per file rather than a whole path, and no
    /// absolute path is ever built. The descriptor stays open.
    private static func list(
        _ descriptor: Int32, display: String, relative: String, listedAt: Int,
        into entries: inout [WorkspaceManifest.Entry]
    ) throws -> [(name: String, relative: String)] {
        let own = dup(descriptor)
        guard own >= 0, let stream = fdopendir(own) else {
            let reason = String(cString: strerror(errno))
            if own >= 0 { close(own) }
            throw Failure(message: "cannot list \(display): \(reason)")
        }
        defer { closedir(stream) }
        var folders = [(name: String, relative: String)]()
        while let item = readdir(stream) {
            let isDot = withUnsafeBytes(of: item.pointee.d_name) { bytes in
                bytes[0] == 0x2e && (bytes[1] == 0 || (bytes[1] == 0x2e && bytes[2] == 0))
            }
            if isDot { continue }
            var info = stat()
            let name = withUnsafeBytes(of: item.pointee.d_name) { bytes -> String in
                let pointer = bytes.baseAddress!.assumingMemoryBound(to: CChar.self)
                if fstatat(descriptor, pointer, &info, AT_SYMLINK_NOFOLLOW) != 0 { info.st_mode = 0 }
                return String(cString: pointer)
            }
            let relativePath = relative.isEmpty ? name : relative + "/" + name
            guard info.st_mode != 0 else {
                throw Failure(message: "cannot read \(display)/\(name): \(String(cString: strerror(errno)))")
            }
            let mode = UInt32(info.st_mode) & 0o7777
            switch UInt32(info.st_mode) & UInt32(S_IFMT) {
            case UInt32(S_IFDIR):
                entries.append(.init(path: relativePath, kind: .directory, mode: mode, size: 0, digest: "-"))
                folders.append((name, relativePath))
            case UInt32(S_IFREG):
                entries.append(
                    .init(
                        path: relativePath, kind: .file, mode: mode, size: Int64(info.st_size), digest: "",
                        stamp: WorkspaceDigestCache.Stamp(info, listedAt: listedAt)))
            case UInt32(S_IFLNK):
                let target = try linkTarget(descriptor, name, display: display + "/" + name)
                entries.append(
                    .init(
                        path: relativePath, kind: .symlink, mode: 0o777, size: Int64(target.utf8.count),
                        digest: WorkspaceDigest.of(Array(target.utf8))))
            default:
                throw Failure(
                    message: "\(display)/\(name) is neither a file, a folder nor a symlink (a socket, FIFO or device); "
                        + "a workspace cannot carry it: remove it from the workspace")
            }
        }
        return folders
    }

    static func linkTarget(_ folder: Int32, _ name: String, display: String) throws -> String {
        var buffer = [CChar](repeating: 0, count: Int(PATH_MAX) + 1)
        let count = readlinkat(folder, name, &buffer, buffer.count - 1)
        guard count >= 0 else {
            throw Failure(message: "cannot read the symlink \(display): \(String(cString: strerror(errno)))")
        }
        buffer[count] = 0
        return String(cString: buffer)
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

    /// Fills in the digest of every file, on as many threads as there are cores; returns how many were computed
    /// (not known from `WorkspaceDigestCache`).
    @discardableResult
    static func digestFiles(
        _ entries: inout [WorkspaceManifest.Entry], under root: URL, cache: WorkspaceDigestCache = .shared
    ) throws -> Int {
        let known = cache.table(for: root.path)
        if !known.isEmpty {
            for index in entries.indices where entries[index].kind == .file && entries[index].digest.isEmpty {
                if let stamp = entries[index].stamp,
                    let digest = cache.digest(in: known, path: entries[index].path, stamp: stamp)
                {
                    entries[index].digest = digest
                }
            }
        }
        let files = entries.indices.filter { entries[$0].kind == .file && entries[$0].digest.isEmpty }
        guard !files.isEmpty else { return 0 }
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
        var computed = [(path: String, known: WorkspaceDigestCache.Known)]()
        computed.reserveCapacity(files.count)
        for (position, index) in files.enumerated() {
            entries[index].digest = digests[position]
            if let stamp = entries[index].stamp {
                computed.append((entries[index].path, .init(stamp: stamp, digest: digests[position])))
            }
        }
        cache.remember(computed, under: root.path)
        return files.count
    }
}

/// The lists of the top-level folders' trees, filled in by several threads.
private final class SubtreeResults: @unchecked Sendable {
    private let lock = NSLock()
    private var next = 0
    private(set) var results: [Result<[WorkspaceManifest.Entry], Error>]

    init(count: Int) {
        results = Array(repeating: .success([]), count: count)
    }

    /// The next folder to list, or `nil` when all are taken.
    func claim() -> Int? {
        lock.lock()
        defer { lock.unlock() }
        guard next < results.count else { return nil }
        next += 1
        return next - 1
    }

    func set(_ index: Int, _ result: Result<[WorkspaceManifest.Entry], Error>) {
        lock.lock()
        results[index] = result
        lock.unlock()
    }
}
