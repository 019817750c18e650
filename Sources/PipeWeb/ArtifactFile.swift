import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// An artifact on disk, found without following any link: every folder on the way from the project folder and the
/// artifact itself are checked with `lstat`, and files are opened with `O_NOFOLLOW`. A host chose what its
/// artifacts hold, so a link in them never takes the page anywhere else.
enum ArtifactFile {
    enum Found: Equatable {
        case file(URL, size: Int64)
        case folder(URL)
    }

    /// `relative` (a recorded artifact path) under `project`, when every part of it is a real folder or file.
    static func find(_ relative: String, in project: URL) -> Found? {
        let parts = relative.split(separator: "/").map(String.init)
        guard !parts.isEmpty, !parts.contains(where: { $0 == "." || $0 == ".." || $0.isEmpty }),
            !relative.hasPrefix("/")
        else { return nil }
        var url = project
        for (index, part) in parts.enumerated() {
            url = url.appendingPathComponent(part)
            var info = stat()
            guard lstat(url.path, &info) == 0 else { return nil }
            let type = info.st_mode & S_IFMT
            if index < parts.count - 1 {
                guard type == S_IFDIR else { return nil }
            } else if type == S_IFREG {
                return .file(url, size: Int64(info.st_size))
            } else if type == S_IFDIR {
                return .folder(url)
            } else {
                return nil
            }
        }
        return nil
    }

    /// Opens a file found by `find` for reading, refusing a link put there since.
    static func open(_ url: URL) -> Int32? {
        let descriptor = Glibc.open(url.path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC)
        return descriptor >= 0 ? descriptor : nil
    }

    /// Up to `count` bytes from the start of a file.
    static func head(_ url: URL, count: Int) -> [UInt8] {
        guard let descriptor = open(url) else { return [] }
        defer { close(descriptor) }
        var buffer = [UInt8](repeating: 0, count: count)
        let read = buffer.withUnsafeMutableBytes { Glibc.read(descriptor, $0.baseAddress, count) }
        return read > 0 ? Array(buffer.prefix(read)) : []
    }
}
