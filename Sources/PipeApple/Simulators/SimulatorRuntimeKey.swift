import PipeCore

/// What a simctl runtime key or header says about the runtime: `com.apple.CoreSimulator.SimRuntime.iOS-17-5`
/// (Xcode ≥ 10.2) or a display name such as `iOS 11.4` (Xcode ≤ 10.1, and the text listing's `-- iOS 17.5 --`).
struct SimulatorRuntimeKey: Equatable {
    static let identifierPrefix = "com.apple.CoreSimulator.SimRuntime."

    var identifier: String
    var name: String
    var platform: String
    var version: String

    /// Derives platform and version from the key alone; keys of an unknown shape keep the key as their name and an
    /// empty version, so a new Apple naming scheme degrades to "no version" instead of failing the whole listing.
    init(key: String) {
        identifier = key
        if key.hasPrefix(Self.identifierPrefix) {
            let rest = key.dropFirst(Self.identifierPrefix.count)
            let parts = rest.split(separator: "-", omittingEmptySubsequences: false).map(String.init)
            let numbers = parts.dropFirst()
            if parts.count >= 2, let version = NumericVersion(numbers.joined(separator: ".")) {
                platform = Self.family(parts[0])
                self.version = version.description
                name = "\(platform) \(self.version)"
                return
            }
            platform = Self.family(parts.first ?? String(rest))
            version = ""
            name = String(rest)
            return
        }
        if let space = key.lastIndex(of: " "), let version = NumericVersion(String(key[key.index(after: space)...])) {
            platform = Self.family(String(key[..<space]))
            self.version = version.description
            name = "\(platform) \(self.version)"
            return
        }
        platform = Self.family(key)
        version = ""
        name = key
    }

    /// The runtime of a simulator already read from a listing.
    init(_ simulator: Simulator) {
        self.init(key: simulator.runtimeIdentifier)
        name = simulator.runtimeName
        platform = simulator.platform
        version = simulator.runtimeVersion
    }

    /// The platform family as destinations name it: simctl says `xrOS` where xcodebuild says `visionOS`.
    static func family(_ raw: String) -> String {
        switch raw.lowercased() {
        case "ios": return "iOS"
        case "tvos": return "tvOS"
        case "watchos": return "watchOS"
        case "xros", "visionos": return "visionOS"
        case "macos": return "macOS"
        default: return raw
        }
    }
}
