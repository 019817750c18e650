import Foundation
import PipeCore

/// What is on disk in a run's folder (`artifacts/<run id>/`): sizes, and files the store never recorded.
enum RunsArtifactFiles {
    /// A file or bundle on disk, relative to the project folder.
    struct File: Equatable {
        var path: String
        var bytes: Int64
    }

    /// Bytes of the regular files under `url` (symbolic links are not followed, and count their own size); 0 when
    /// there is nothing.
    static func size(of url: URL) -> Int64 {
        var info = stat()
        guard lstat(url.path, &info) == 0 else { return 0 }
        guard (info.st_mode & S_IFMT) == S_IFDIR else { return Int64(info.st_size) }
        let names = (try? FileManager.default.contentsOfDirectory(atPath: url.path)) ?? []
        return names.reduce(0) { total, name in total + size(of: url.appendingPathComponent(name)) }
    }

    /// Files in `folder` whose paths are not among `recorded`: what a run cut short (a crash, `kill -9`) left
    /// before the store heard of it. A `.xcresult` bundle counts as one file; the run record (`summary.json`) and
    /// Pipe's temporary files are left out.
    static func unrecorded(in folder: URL, recorded: Set<String>, session: RunsSession) -> [File] {
        var found: [File] = []
        func visit(_ url: URL) {
            let names = ((try? FileManager.default.contentsOfDirectory(atPath: url.path)) ?? []).sorted()
            for name in names where !name.hasPrefix(".") {
                let child = url.appendingPathComponent(name)
                let path = relativePath(child, to: session.project.url)
                if recorded.contains(path) || (url == folder && name == "summary.json") { continue }
                var info = stat()
                let isDirectory = lstat(child.path, &info) == 0 && (info.st_mode & S_IFMT) == S_IFDIR
                if isDirectory && !name.hasSuffix(".xcresult") {
                    // A folder holding recorded artifacts is not itself one: look inside.
                    visit(child)
                } else {
                    found.append(File(path: path, bytes: size(of: child)))
                }
            }
        }
        visit(folder)
        return found
    }
}
