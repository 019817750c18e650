import Foundation
import PipeBasics

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// The staging folder a pull-back is extracted into, written only relative to descriptors: every component is
/// opened with `O_NOFOLLOW`, so nothing is ever written through a link, whatever another extraction into the same
/// folder (the other half of a split pull-back) has made meanwhile.
final class ExtractionFolder {
    /// What the archive asked for that the folder refuses to do: the host's fault.
    struct Refusal: Error {
        var reason: String
    }

    /// The coordinator's own failure (its disk, its permissions): not the host's fault.
    struct LocalFailure: Error {
        var message: String
    }

    private let root: Int32
    /// The folder of the last member written and its descriptor: members of one folder come together.
    private var cachedParent: (path: ArraySlice<[UInt8]>, descriptor: Int32)?

    init(_ url: URL) throws {
        root = open(url.path, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)
        guard root >= 0 else { throw LocalFailure(message: "cannot open \(url.path): \(Self.lastError())") }
    }

    deinit {
        if let cachedParent { _ = close(cachedParent.descriptor) }
        _ = close(root)
    }

    /// Makes the folder `name` (and any folder above it the archive left out); an existing folder is kept.
    func makeFolder(_ name: ArchiveMemberName) throws {
        let parent = try openParent(of: name)
        if mkdirat(parent, name.last.cString, 0o755) == 0 { return }
        let error = errno
        guard error == EEXIST else { throw Self.failure(error, "cannot create the folder", name) }
        var info = stat()
        guard fstatat(parent, name.last.cString, &info, AT_SYMLINK_NOFOLLOW) == 0, info.st_mode & S_IFMT == S_IFDIR
        else { throw Refusal(reason: "the folder `\(name.display)` arrived over another member of that name") }
    }

    /// Creates the regular file `name` for writing: 0755 when the archive marked it executable, else 0644 (both
    /// through the umask). A member of that name already there is refused.
    func createFile(_ name: ArchiveMemberName, executable: Bool) throws -> Int32 {
        let parent = try openParent(of: name)
        let descriptor = openat(
            parent, name.last.cString, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC,
            executable ? 0o755 : 0o644)
        guard descriptor >= 0 else {
            let error = errno
            if error == EEXIST {
                throw Refusal(reason: "`\(name.display)` arrived twice")
            }
            throw Self.failure(error, "cannot create", name)
        }
        return descriptor
    }

    /// Makes the link `name` with the target text `target`, which `SymlinkContainment` checks once the whole item
    /// is in place.
    func makeLink(_ name: ArchiveMemberName, target: [UInt8]) throws {
        let parent = try openParent(of: name)
        guard symlinkat(target.cString, parent, name.last.cString) == 0 else {
            let error = errno
            if error == EEXIST { throw Refusal(reason: "`\(name.display)` arrived twice") }
            throw Self.failure(error, "cannot create the link", name)
        }
    }

    /// Opens the regular file `name` for reading (the source of a hard link), never through a link.
    func openFileForReading(_ name: ArchiveMemberName) throws -> Int32 {
        let parent = try openParent(of: name)
        let descriptor = openat(parent, name.last.cString, O_RDONLY | O_NOFOLLOW | O_CLOEXEC)
        var info = stat()
        guard descriptor >= 0, fstat(descriptor, &info) == 0, info.st_mode & S_IFMT == S_IFREG else {
            if descriptor >= 0 { _ = close(descriptor) }
            throw Refusal(reason: "the hard link `\(name.display)`'s target is not a file that arrived before it")
        }
        return descriptor
    }

    /// The descriptor of the folder holding `name`, created where missing; owned by this object.
    private func openParent(of name: ArchiveMemberName) throws -> Int32 {
        let path = name.parent
        if let cachedParent, cachedParent.path == path { return cachedParent.descriptor }
        if let cachedParent { _ = close(cachedParent.descriptor) }
        cachedParent = nil
        var current = dup(root)
        guard current >= 0 else { throw LocalFailure(message: "cannot open the staging folder: \(Self.lastError())") }
        for (depth, component) in path.enumerated() {
            var next = openat(current, component.cString, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)
            if next < 0 && errno == ENOENT {
                if mkdirat(current, component.cString, 0o755) != 0 && errno != EEXIST {
                    let error = errno
                    _ = close(current)
                    throw Self.failure(error, "cannot create the folder of", name)
                }
                next = openat(current, component.cString, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)
            }
            let error = errno
            _ = close(current)
            guard next >= 0 else {
                let through = ArchiveMemberName.display(of: path.prefix(depth + 1))
                if error == ELOOP || error == ENOTDIR {
                    throw Refusal(
                        reason: "`\(name.display)` would be written through `\(through)`, which is not a folder")
                }
                throw Self.failure(error, "cannot open the folder of", name)
            }
            current = next
        }
        cachedParent = (path, current)
        return current
    }

    private static func failure(_ error: Int32, _ action: String, _ name: ArchiveMemberName) -> LocalFailure {
        LocalFailure(message: "\(action) `\(name.display)`: \(String(cString: strerror(error)))")
    }

    private static func lastError() -> String { String(cString: strerror(errno)) }
}

extension ArchiveMemberName {
    static func display(of components: ArraySlice<[UInt8]>) -> String {
        DisplayEscaping.escaped(bytes: Array(components.joined(separator: [UInt8(ascii: "/")])))
    }
}

extension Array where Element == UInt8 {
    /// The bytes as a NUL-terminated C string (names never hold NUL: tar cannot carry one).
    var cString: [CChar] { map { CChar(bitPattern: $0) } + [0] }
}
