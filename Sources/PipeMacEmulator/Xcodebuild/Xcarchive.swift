import Foundation
import PipeBasics

extension CannedResults {
    /// A scheme's app as `archive` builds it; what is left out comes from the command line's build settings or
    /// the defaults in `ArchivedApp`.
    struct App: Codable, Equatable {
        /// The product name: `<name>.app` and its executable.
        var name: String?
        var bundleIdentifier: String?
        var shortVersion: String?
        var buildVersion: String?
        /// The development team (`DEVELOPMENT_TEAM`).
        var team: String?
    }
}

/// The app an archive holds.
struct ArchivedApp: Equatable {
    var name: String
    var bundleIdentifier: String
    var shortVersion: String
    var buildVersion: String
    var team: String?
}

extension ArchivedApp {
    /// The scheme's canned app with the command line's settings over it, as Xcode lets command-line settings win
    /// over the project's.
    init(scheme: String, canned: CannedResults.App?, settings: CommandLineBuildSettings) {
        name = settings["PRODUCT_NAME"] ?? canned?.name ?? scheme
        let word = name.filter { $0.isLetter || $0.isNumber || $0 == "-" }
        bundleIdentifier =
            settings["PRODUCT_BUNDLE_IDENTIFIER"] ?? canned?.bundleIdentifier
            ?? "com.example.\(word.isEmpty ? "app" : word)"
        shortVersion = settings["MARKETING_VERSION"] ?? canned?.shortVersion ?? "1.0"
        buildVersion = settings["CURRENT_PROJECT_VERSION"] ?? canned?.buildVersion ?? "1"
        team = settings["DEVELOPMENT_TEAM"] ?? canned?.team
    }
}

/// An `.xcarchive` folder in the layout of apple-formats.md Part 2 §4a/§4b: `Info.plist`,
/// `Products/Applications/<App>.app/` (binary Info.plist, executable, PkgInfo, entitlements, `_CodeSignature/`) and
/// `dSYMs/<App>.app.dSYM/Contents/`. Executables are Mach-O headers with a note, not code.
enum Xcarchive {
    /// What `-exportArchive` reads of an archive's `Info.plist`.
    struct Info {
        var app: ArchivedApp
        /// `ApplicationProperties.ApplicationPath`: `Applications/<App>.app`.
        var applicationPath: String
        var signingIdentity: String?
    }

    /// An archive `Info.plist` larger than this is not read.
    static let maximumInfoPlistBytes = 1 << 20

    static func write(
        app: ArchivedApp, identity: SigningIdentity?, scheme: String, config: EmulatedHostConfig, at archive: URL,
        created: Date
    ) throws {
        let manager = FileManager.default
        // An existing archive is replaced as a whole, so nothing of an earlier one survives (assumed; no capture).
        if manager.fileExists(atPath: archive.path) { try manager.removeItem(at: archive) }
        let bundle = archive.appendingPathComponent("Products/Applications/\(app.name).app", isDirectory: true)
        try manager.createDirectory(at: bundle, withIntermediateDirectories: true)
        try write(appBundle: bundle, app: app, config: config)
        try write(dSYM: archive.appendingPathComponent("dSYMs/\(app.name).app.dSYM", isDirectory: true), app: app)
        var properties: [String: Any] = [
            "ApplicationPath": "Applications/\(app.name).app", "CFBundleIdentifier": app.bundleIdentifier,
            "CFBundleShortVersionString": app.shortVersion, "CFBundleVersion": app.buildVersion,
            "Architectures": [config.hostArchitecture],
        ]
        if let identity { properties["SigningIdentity"] = identity.name }
        if let team = app.team ?? identity?.team { properties["Team"] = team }
        let info: [String: Any] = [
            "ApplicationProperties": properties, "ArchiveVersion": 2, "CreationDate": created, "Name": scheme,
            "SchemeName": scheme,
        ]
        try plist(info).write(to: archive.appendingPathComponent("Info.plist"))
    }

    /// Reads what `-exportArchive` needs; `nil` when the archive holds no app (no `ApplicationProperties`).
    static func read(_ archive: URL) throws -> Info? {
        let url = archive.appendingPathComponent("Info.plist")
        let size = (try? FileManager.default.attributesOfItem(atPath: url.path)[.size] as? NSNumber)?.intValue ?? 0
        guard size <= maximumInfoPlistBytes else { return nil }
        let data = try Data(contentsOf: url)
        guard let root = try PropertyListSerialization.propertyList(from: data, format: nil) as? [String: Any],
            let properties = root["ApplicationProperties"] as? [String: Any],
            let path = properties["ApplicationPath"] as? String, path.hasSuffix(".app"),
            !path.split(separator: "/").contains(".."), let bundleID = properties["CFBundleIdentifier"] as? String
        else { return nil }
        let name = String(URL(fileURLWithPath: path).deletingPathExtension().lastPathComponent)
        let app = ArchivedApp(
            name: name, bundleIdentifier: bundleID,
            shortVersion: properties["CFBundleShortVersionString"] as? String ?? "1.0",
            buildVersion: properties["CFBundleVersion"] as? String ?? "1", team: properties["Team"] as? String)
        return Info(app: app, applicationPath: path, signingIdentity: properties["SigningIdentity"] as? String)
    }

    private static func write(appBundle bundle: URL, app: ArchivedApp, config: EmulatedHostConfig) throws {
        let sdk =
            config.runtimes.filter { $0.platform == "iOS" }.map(\.version)
            .max { DestinationSpecifier.versionKey($0).lexicographicallyPrecedes(DestinationSpecifier.versionKey($1)) }
            ?? "18.2"
        let xcodeDigits = DestinationSpecifier.versionKey(config.xcode.version).prefix(3).map(String.init)
        // The Info.plist of a built app is binary: Xcode converts it when it copies it into the bundle.
        let info: [String: Any] = [
            "CFBundleIdentifier": app.bundleIdentifier, "CFBundleShortVersionString": app.shortVersion,
            "CFBundleVersion": app.buildVersion, "CFBundleExecutable": app.name, "CFBundleName": app.name,
            "CFBundlePackageType": "APPL", "CFBundleInfoDictionaryVersion": "6.0", "CFBundleDevelopmentRegion": "en",
            "CFBundleSupportedPlatforms": ["iPhoneOS"], "DTPlatformName": "iphoneos", "DTPlatformVersion": sdk,
            "DTSDKName": "iphoneos\(sdk)",
            "DTXcode": xcodeDigits.joined().padding(toLength: 4, withPad: "0", startingAt: 0),
            "DTXcodeBuild": config.xcode.build, "MinimumOSVersion": "17.0", "LSRequiresIPhoneOS": true,
            "UIDeviceFamily": [1, 2], "BuildMachineOSBuild": config.macOSVersion.build,
        ]
        try PropertyListSerialization.data(fromPropertyList: info, format: .binary, options: 0)
            .write(to: bundle.appendingPathComponent("Info.plist"))
        try Data("APPL????".utf8).write(to: bundle.appendingPathComponent("PkgInfo"))
        let executable = bundle.appendingPathComponent(app.name)
        try machO(fileType: 2, note: "\(app.bundleIdentifier) \(app.shortVersion) (\(app.buildVersion))")
            .write(to: executable)
        try FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: executable.path)
        var entitlements: [String: Any] = ["get-task-allow": false]
        if let team = app.team {
            entitlements["application-identifier"] = "\(team).\(app.bundleIdentifier)"
            entitlements["com.apple.developer.team-identifier"] = team
        }
        try plist(entitlements).write(to: bundle.appendingPathComponent("archived-expanded-entitlements.xcent"))
        try sealResources(of: bundle)
    }

    /// `_CodeSignature/CodeResources`: each file's SHA-256 (`files2.<path>.hash2`), as codesign seals a bundle.
    static func sealResources(of bundle: URL) throws {
        let manager = FileManager.default
        let signature = bundle.appendingPathComponent("_CodeSignature", isDirectory: true)
        try manager.createDirectory(at: signature, withIntermediateDirectories: true)
        var files: [String: Any] = [:]
        for relative in try BundleFiles.list(bundle) where !relative.hasPrefix("_CodeSignature/") {
            let digest = SHA256Digest()
            digest.update(try Data(contentsOf: bundle.appendingPathComponent(relative)))
            files[relative] = ["hash2": Data(digest.finalize())]
        }
        try plist(["files": [String: Any](), "files2": files]).write(
            to: signature.appendingPathComponent("CodeResources"))
    }

    private static func write(dSYM: URL, app: ArchivedApp) throws {
        let dwarf = dSYM.appendingPathComponent("Contents/Resources/DWARF", isDirectory: true)
        try FileManager.default.createDirectory(at: dwarf, withIntermediateDirectories: true)
        let info: [String: Any] = [
            "CFBundleIdentifier": "com.apple.xcode.dsym.\(app.bundleIdentifier)", "CFBundlePackageType": "dSYM",
            "CFBundleInfoDictionaryVersion": "6.0", "CFBundleDevelopmentRegion": "English",
            "CFBundleSignature": "????", "CFBundleShortVersionString": app.shortVersion,
            "CFBundleVersion": app.buildVersion,
        ]
        try plist(info).write(to: dSYM.appendingPathComponent("Contents/Info.plist"))
        try machO(fileType: 0xA, note: "debug symbols of \(app.name)").write(to: dwarf.appendingPathComponent(app.name))
    }

    /// A 64-bit arm64 Mach-O header (`MH_EXECUTE` 2, `MH_DSYM` 0xA) and no load commands, then `note`: enough for
    /// `file` to call it Mach-O, and honest that nothing was compiled.
    static func machO(fileType: UInt32, note: String) -> Data {
        var bytes: [UInt8] = []
        for word: UInt32 in [0xFEED_FACF, 0x0100_000C, 0, fileType, 0, 0, 0, 0] {
            bytes += withUnsafeBytes(of: word.littleEndian, Array.init)
        }
        return Data(bytes + Array("pipe-mac-emulator: \(note)\n".utf8))
    }

    /// An XML property list as Xcode writes them (keys sorted, tabs).
    static func plist(_ value: Any) throws -> Data {
        try PropertyListSerialization.data(fromPropertyList: value, format: .xml, options: 0)
    }
}

/// The regular files of a bundle folder, relative to it and sorted; links and other special files are left out,
/// and a bundle of more than `maximumFiles` is refused (the folder may have been changed by anyone on the host).
enum BundleFiles {
    static let maximumFiles = 20_000

    static func list(_ folder: URL) throws -> [String] {
        guard let walker = FileManager.default.enumerator(atPath: folder.path) else { return [] }
        var files: [String] = []
        while let relative = walker.nextObject() as? String {
            guard walker.fileAttributes?[.type] as? FileAttributeType == .typeRegular else { continue }
            files.append(relative)
            guard files.count <= maximumFiles else {
                throw CocoaError(.fileReadTooLarge, userInfo: [NSFilePathErrorKey: folder.path])
            }
        }
        return files.sorted()
    }
}
