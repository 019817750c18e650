/// What a release manager asks of an app: read from its bundle's `Info.plist` (binary or XML).
public struct AppBundleInfo: Equatable, Sendable, Codable {
    /// `CFBundleIdentifier`.
    public let bundleIdentifier: String
    /// `CFBundleShortVersionString`, the marketing version (`1.4.2`).
    public let shortVersion: String
    /// `CFBundleVersion`, the build number; often reused across builds, so never an identity on its own.
    public let buildVersion: String
    /// `CFBundleExecutable`, when present.
    public let executable: String?

    public init(bundleIdentifier: String, shortVersion: String, buildVersion: String, executable: String?) {
        self.bundleIdentifier = bundleIdentifier
        self.shortVersion = shortVersion
        self.buildVersion = buildVersion
        self.executable = executable
    }

    /// Reads the facts from an Info.plist's bytes; `source` names the file in messages.
    public static func read(infoPlist bytes: [UInt8], source: String) throws -> AppBundleInfo {
        let plist: PropertyListValue
        do {
            plist = try PropertyListReader.read(bytes, limits: PropertyListLimits(maximumBytes: 1 << 20))
        } catch let error as PropertyListError {
            throw PropertyListError("\(source): \(error.message)")
        }
        guard case .dictionary = plist else {
            throw PropertyListError("\(source): the Info.plist is \(plist.kindName), not a dictionary")
        }
        func text(_ key: String) throws -> String {
            guard let value = plist[key] else { throw PropertyListError("\(source): the Info.plist has no \(key)") }
            guard let string = value.string, !string.isEmpty, string.count <= 256 else {
                throw PropertyListError("\(source): the Info.plist's \(key) is not a short string")
            }
            return string
        }
        return AppBundleInfo(
            bundleIdentifier: try text("CFBundleIdentifier"),
            shortVersion: try text("CFBundleShortVersionString"),
            buildVersion: try text("CFBundleVersion"),
            executable: plist["CFBundleExecutable"]?.string)
    }
}
