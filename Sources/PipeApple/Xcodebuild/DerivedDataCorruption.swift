import Foundation

/// Whether an xcodebuild log shows a DerivedData that a build cannot recover from by itself: Xcode's build database
/// or its module cache damaged. A build that merely failed (a compile error, a cancelled build) leaves a
/// DerivedData Xcode copes with; these do not, and the next build should start from nothing.
///
/// The messages are those Xcode and clang print for a damaged build database (`build.db`, SQLite) and a damaged
/// precompiled module, as reported in Apple's developer forums; a Mac was not at hand to produce them here.
public enum DerivedDataCorruption {
    static let signs = [
        "database disk image is malformed",
        "malformed or corrupted AST file",
        "file is not a database",
    ]

    /// The first line of `text` that shows corruption, cut to 200 characters.
    public static func evidence(in text: Substring) -> String? {
        for line in text.split(separator: "\n", omittingEmptySubsequences: true)
        where signs.contains(where: { line.contains($0) }) {
            let trimmed = line.trimmingCharacters(in: .whitespaces)
            return String(trimmed.prefix(200))
        }
        return nil
    }

    /// `evidence(in:)` of the log file at `url` (its last 4 MiB: the build's end is where it failed).
    public static func evidence(inLogAt url: URL) -> String? {
        guard let handle = try? FileHandle(forReadingFrom: url) else { return nil }
        defer { try? handle.close() }
        let size = (try? handle.seekToEnd()) ?? 0
        let start = size > 4 << 20 ? size - (4 << 20) : 0
        try? handle.seek(toOffset: start)
        guard let data = try? handle.readToEnd() else { return nil }
        return evidence(in: Substring(String(decoding: data, as: UTF8.self)))
    }
}
