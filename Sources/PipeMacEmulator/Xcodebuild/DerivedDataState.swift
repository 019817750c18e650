import Foundation

/// How the emulated `xcodebuild` treats the DerivedData folder it is given, as Xcode does: a build is cold in a
/// fresh folder, incremental when the same folder comes back for the same source folder, and from nothing again
/// when the folder was moved or copied elsewhere, or the sources moved.
///
/// Xcode keys its build database and module caches by absolute paths. How it reacts to a DerivedData folder moved
/// to another path cannot be checked without a Mac: the emulator assumes it rebuilds everything, which is also what
/// SwiftPM does with a moved scratch folder (docs/host-tools.md, "DerivedData").
enum DerivedDataState: String {
    case cold
    case incremental
    case moved

    /// The file in a DerivedData folder that says where it was made and for which sources.
    static let recordName = "pipe-emulator-paths"

    /// Where the package's build goes inside `derivedData` (SwiftPM's scratch folder).
    static func scratch(in derivedData: URL) -> URL {
        derivedData.appendingPathComponent("Build/Intermediates.noindex/SwiftPM", isDirectory: true)
    }

    /// Decides how the build in `derivedData` for the sources at `source` starts, empties the scratch folder when
    /// the folder moved, creates it (a canned build leaves it as a real one would), and records the folder's and
    /// the sources' paths for the next build.
    static func prepare(derivedData: URL, source: URL) throws -> DerivedDataState {
        let manager = FileManager.default
        let scratch = scratch(in: derivedData)
        let record = derivedData.appendingPathComponent(recordName)
        let paths = "derivedData=\(derivedData.standardizedFileURL.path)\nsource=\(source.standardizedFileURL.path)\n"
        var state = DerivedDataState.cold
        if manager.fileExists(atPath: scratch.path) {
            let recorded = (try? String(contentsOf: record, encoding: .utf8)) ?? ""
            if recorded == paths {
                state = .incremental
            } else {
                try manager.removeItem(at: scratch)
                state = .moved
            }
        }
        try manager.createDirectory(at: scratch, withIntermediateDirectories: true)
        try Data(paths.utf8).write(to: record)
        return state
    }
}
