import Foundation
import PipeBasics

/// What a build cache on a host holds, and so who may use it (docs/hosts.md, "Build caches").
///
/// A cache is one workspace tree at a stable path (leased by one run at a time) with the DerivedData and package
/// checkouts of the builds made in it. Its identity is the repository, the workspace folder in it, the trust level
/// of the code and the Xcode (`DEVELOPER_DIR`); each build inside adds its scheme, container, configuration,
/// product-changing build settings and Xcode version (`BuildIdentity`). Code of one trust level never gets a cache
/// that code of another level touched: the level is part of the key.
public struct BuildCacheIdentity: Sendable, Equatable {
    /// The repository URL, or the project folder for a pipeline whose repository is the project's own.
    public var repository: String
    /// The workspace folder inside the repository (`repository.workspace`).
    public var workspacePath: String
    public var trust: TrustLevel
    /// The Xcode the host environment selects (`DEVELOPER_DIR`); `nil` for the host's default Xcode.
    public var developerDirectory: String?

    public init(repository: String, workspacePath: String, trust: TrustLevel, developerDirectory: String?) {
        self.repository = repository
        self.workspacePath = workspacePath
        self.trust = trust
        self.developerDirectory = developerDirectory
    }

    /// `<trust>-<16 hex digits>`: the trust level stays readable in `pipe hosts clean`'s output.
    public var key: String {
        let text = [repository, workspacePath, trust.rawValue, developerDirectory ?? "-"].joined(separator: "\u{0}")
        return trust.rawValue + "-" + String(SHA256Digest.hex(of: Data(text.utf8)).prefix(16))
    }

    /// The names of the host's caches of this identity (`<key>-1` … `<key>-<count>`), in the order runs take them.
    public func cacheNames(count: Int) -> [String] {
        (1...max(1, count)).map { "\(key)-\($0)" }
    }

    /// Whether `name` is a build cache's name (`<trust>-<16 hex>-<n>`), as `cacheNames` makes them: the only
    /// folders `pipe hosts clean --build-caches` and the eviction touch.
    public static func isCacheName(_ name: String) -> Bool {
        let parts = name.split(separator: "-", omittingEmptySubsequences: false)
        guard parts.count == 3, TrustLevel(rawValue: String(parts[0])) != nil, parts[1].count == 16,
            parts[1].allSatisfy({ $0.isHexDigit && !$0.isUppercase }), !parts[2].isEmpty, parts[2].count <= 3,
            parts[2].allSatisfy({ $0.isASCII && $0.isNumber })
        else { return false }
        return true
    }
}

/// One build inside a build cache: what else changes its products. Builds of different identities in one cache
/// keep separate DerivedData and package checkouts (`BuildCachePlace.folders(for:)`).
public struct BuildIdentity: Sendable, Equatable {
    /// Names the folder for people (a layer, or the layers sharing one build joined with `+`).
    public var label: String
    public var scheme: String
    /// `-project X`, `-workspace Y` or empty for a package.
    public var container: String
    public var configuration: String?
    /// The build settings passed on the command line, as `NAME=value`, in order.
    public var buildSettings: [String]
    /// `xcodebuild -version`'s first line, when known.
    public var xcodeVersion: String?

    public init(
        label: String, scheme: String, container: String, configuration: String?, buildSettings: [String],
        xcodeVersion: String?
    ) {
        self.label = label
        self.scheme = scheme
        self.container = container
        self.configuration = configuration
        self.buildSettings = buildSettings
        self.xcodeVersion = xcodeVersion
    }

    /// `<label>-<12 hex digits>`, the label cut to characters safe in a folder name.
    public var folderName: String {
        let text = [scheme, container, configuration ?? "-", xcodeVersion ?? "-"] + buildSettings
        let digest = SHA256Digest.hex(of: Data(text.joined(separator: "\u{0}").utf8)).prefix(12)
        let safe = String(
            label.unicodeScalars.prefix(48).map { scalar -> Character in
                let allowed = scalar.isASCII && (scalar.properties.isAlphabetic || ("0"..."9").contains(scalar))
                return allowed || "._+-".unicodeScalars.contains(scalar) ? Character(scalar) : "_"
            })
        return (safe.isEmpty || safe.hasPrefix(".") ? "build" : safe) + "-" + digest
    }
}
