import Foundation

/// Where the repository and its built products are, for tests that run the real binaries.
public enum RepositoryPaths {
    /// The repository's top folder (found from this file's path, so it works from any working directory).
    public static let root: URL = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    /// The debug build folder that `swift build` and `swift test` fill.
    public static var buildProducts: URL { root.appendingPathComponent(".build/debug") }

    /// The built `pipe` executable.
    public static var pipeBinary: URL { buildProducts.appendingPathComponent("pipe") }

    /// The built emulator binary that stands in for `xcrun` and `xcodebuild` on emulated hosts.
    public static var emulatorBinary: URL { buildProducts.appendingPathComponent("pipe-mac-emulator") }

    /// `scripts/mac-host`.
    public static var macHostScript: URL { root.appendingPathComponent("scripts/mac-host") }
}
