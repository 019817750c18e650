import CBuildInfo
import Foundation
import PipeStorePostgres

/// What `pipe --version` says: the version from the repository's VERSION file, the commit and build time `make`
/// gave the build, and the C libraries as they report themselves at run time (the ones this process really uses).
struct BuildInfo: Sendable, Equatable, Encodable {
    struct Library: Sendable, Equatable, Encodable {
        var name: String
        var version: String
    }

    var version: String
    /// `nil` when the build was not told (a plain `swift build`).
    var commit: String?
    /// Whether the tree had uncommitted changes; `nil` when unknown.
    var dirty: Bool?
    var buildDate: String?
    var libraries: [Library]

    private enum CodingKeys: String, CodingKey {
        case version, commit, dirty, buildDate, libraries
    }

    /// Unknown values are `null`, not left out, so a reader sees every key.
    func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(version, forKey: .version)
        try container.encode(commit, forKey: .commit)
        try container.encode(dirty, forKey: .dirty)
        try container.encode(buildDate, forKey: .buildDate)
        try container.encode(libraries, forKey: .libraries)
    }

    static let current: BuildInfo = {
        var slots = [pipe_library_version](repeating: pipe_library_version(), count: 32)
        let count = Int(pipe_library_versions(&slots, Int32(slots.count)))
        let libraries =
            slots.prefix(count).map {
                Library(name: String(cString: $0.name), version: String(cString: $0.version))
            } + [Library(name: "libpq", version: PostgresDatabase.libraryVersion)]
        func text(_ pointer: UnsafePointer<CChar>) -> String? {
            let value = String(cString: pointer).trimmingCharacters(in: .whitespacesAndNewlines)
            return value.isEmpty ? nil : value
        }
        let dirty = text(pipe_build_dirty()).map { $0 == "1" }
        return BuildInfo(
            version: text(pipe_build_version()) ?? "unknown", commit: text(pipe_build_commit()), dirty: dirty,
            buildDate: text(pipe_build_date()), libraries: libraries)
    }()

    /// `pipe 0.1.0 (commit 1a2b3c4d5e6f, built 2026-12-03T12:00:00Z)` and one line per library.
    var text: String {
        var commitText = commit.map { "commit \($0.prefix(12))" } ?? "unknown commit"
        if dirty == true { commitText += " with uncommitted changes" }
        var lines = ["pipe \(version) (\(commitText)" + (buildDate.map { ", built \($0)" } ?? "") + ")"]
        lines += libraries.map { "  \($0.name) \($0.version)" }
        return lines.joined(separator: "\n")
    }

    var json: String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        return (try? encoder.encode(self)).map { String(decoding: $0, as: UTF8.self) } ?? "{}"
    }
}
