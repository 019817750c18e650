import Foundation

/// The files `-exportArchive` writes next to the `.ipa` (apple-formats.md Part 2 §4d). No complete real
/// `DistributionSummary.plist` or `Packaging.log` was found; their shapes here follow what consumers read and are
/// marked assumed in emulator/README.md.
struct ExportReport {
    let app: ArchivedApp
    let method: ExportMethod
    let identity: SigningIdentity
    let profile: InstalledProfile
    let team: String
    let architectures: [String]

    func write(options: ExportOptions, in folder: URL) throws {
        try Xcarchive.plist(effectiveOptions(options)).write(to: folder.appendingPathComponent("ExportOptions.plist"))
        try Xcarchive.plist(distributionSummary()).write(
            to: folder.appendingPathComponent("DistributionSummary.plist"))
        try Data(packagingLog(at: Date()).utf8).write(to: folder.appendingPathComponent("Packaging.log"))
    }

    /// The options as Xcode resolved them: the method in this Xcode's naming, the team, the profile by name.
    func effectiveOptions(_ options: ExportOptions) -> [String: Any] {
        var values = options.values
        values["method"] = method.name
        values["teamID"] = team
        values["signingCertificate"] = identity.kind
        values["provisioningProfiles"] = [app.bundleIdentifier: profile.name]
        return values
    }

    /// Keyed by the `.ipa`'s name, an array of one dictionary per bundle (here: the app alone).
    func distributionSummary() -> [String: Any] {
        var profileFacts: [String: Any] = ["UUID": profile.uuid, "name": profile.name]
        if let expiration = profile.expiration { profileFacts["dateExpires"] = Self.shortDate(expiration) }
        let bundle: [String: Any] = [
            "architectures": architectures, "buildNumber": app.buildVersion, "versionNumber": app.shortVersion,
            "name": "\(app.name).app",
            "certificate": ["SHA1": identity.sha1, "type": identity.kind],
            "entitlements": [
                "application-identifier": "\(team).\(app.bundleIdentifier)",
                "com.apple.developer.team-identifier": team, "get-task-allow": method.isDevelopment,
            ],
            "profile": profileFacts, "team": ["id": team, "name": profile.teamName ?? ""],
        ]
        return ["\(app.name).ipa": [bundle]]
    }

    /// One `Processing step:` line per distribution step, named as Xcode names its steps
    /// (`IDEDistributionSigningAssetsStep` in §3d); the list itself is assumed.
    func packagingLog(at date: Date) -> String {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "UTC")
        formatter.dateFormat = "yyyy-MM-dd HH:mm:ss Z"
        let stamp = formatter.string(from: date)
        let steps = [
            "IDEDistributionCreateDestRootStep", "IDEDistributionCopyItemStep", "IDEDistributionSigningAssetsStep",
            "IDEDistributionEmbedProfileStep", "IDEDistributionCodesignStep", "IDEDistributionZipODRItemStep",
            "IDEDistributionPackagingStep",
        ]
        var lines = steps.map { "\(stamp)  Processing step: \($0)" }
        lines.append("\(stamp)  Signing \(app.name).app with \"\(identity.name)\" and profile \"\(profile.name)\"")
        return lines.joined(separator: "\n") + "\n"
    }

    /// `M/d/yy`, the locale-formatted string consumers found under `dateExpires` (not a plist date).
    static func shortDate(_ date: Date) -> String {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "UTC")
        formatter.dateFormat = "M/d/yy"
        return formatter.string(from: date)
    }
}

/// The `<name>_<yyyy-MM-dd_HH-mm-ss.SSS>.xcdistributionlogs` folder each export opens in `$TMPDIR`, where a
/// failure leaves `IDEDistribution.critical.log` (what bitrise prints after a failed export).
struct DistributionLogs {
    let folder: URL

    static func create(name: String, environment: [String: String]) -> DistributionLogs {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.dateFormat = "yyyy-MM-dd_HH-mm-ss.SSS"
        let temporary = environment["TMPDIR"].flatMap { $0.isEmpty ? nil : $0 } ?? NSTemporaryDirectory()
        let folder = URL(fileURLWithPath: temporary, isDirectory: true)
            .appendingPathComponent("\(name)_\(formatter.string(from: Date())).xcdistributionlogs", isDirectory: true)
        try? FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        return DistributionLogs(folder: folder)
    }

    func write(_ name: String, _ text: String) {
        try? Data(text.utf8).write(to: folder.appendingPathComponent(name))
    }
}
