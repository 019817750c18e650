import Foundation

/// `xcodebuild -exportArchive -archivePath X.xcarchive -exportPath OUT -exportOptionsPlist opts.plist`: checks the
/// flags and the archive, opens a distribution log bundle, reads the options and checks `method` against the
/// host's Xcode, finds the signing identity (keychain of `OTHER_CODE_SIGN_FLAGS=--keychain`, else the login
/// keychain) and the provisioning profile (`provisioningProfiles`, among the installed ones), then writes
/// `OUT/<App>.ipa` with `ExportOptions.plist`, `DistributionSummary.plist` and `Packaging.log` beside it
/// (apple-formats.md Part 2 §3a, §3c, §3d, §4c, §4d). Failures end with `** EXPORT FAILED **`, exit 70.
struct XcodebuildExportAction {
    let context: EmulatorContext
    let arguments: XcodebuildArguments

    static let failureExitCode: Int32 = 70

    func run() -> Int32 {
        guard let (config, _) = context.loadHost() else { return EmulatorContext.configurationExitCode }
        if let delay = config.faultSettings.startDelaySeconds, delay > 0 { Thread.sleep(forTimeInterval: delay) }
        guard let archivePath = arguments.archivePath else { return refuse(.exportFlagRequired("-archivePath")) }
        guard let exportPath = arguments.exportPath else { return refuse(.exportFlagRequired("-exportPath")) }
        guard let optionsPath = arguments.exportOptionsPlist else {
            return refuse(.exportFlagRequired("-exportOptionsPlist"))
        }
        let archive = URL(fileURLWithPath: context.absolutePath(archivePath), isDirectory: true)
        var isFolder: ObjCBool = false
        guard FileManager.default.fileExists(atPath: archive.path, isDirectory: &isFolder), isFolder.boolValue else {
            context.stderr.line(XcodebuildReleaseError.archiveNotFound(archive.path).message)
            context.stdout.line("** EXPORT FAILED **")
            return Self.failureExitCode
        }
        let logs = DistributionLogs.create(
            name: archive.deletingPathExtension().lastPathComponent, environment: context.environment)
        context.stderr.line(
            "\(XcodebuildTestAction.logPrefix()) [MT] IDEDistribution: -[IDEDistributionLogging "
                + "_createLoggingBundleAtPath:]: Created bundle at path \"\(logs.folder.path)\".")
        do {
            let exported = try export(
                archive: archive, options: URL(fileURLWithPath: context.absolutePath(optionsPath)),
                to: URL(fileURLWithPath: context.absolutePath(exportPath), isDirectory: true), config: config)
            logs.write("IDEDistribution.standard.log", "Exported \(exported) to \(exportPath)\n")
            context.stdout.line("Exported \(exported) to: \(context.absolutePath(exportPath))")
            context.stdout.line("** EXPORT SUCCEEDED **")
            context.stdout.line()
            return 0
        } catch let failure as ExportFailure {
            for line in failure.lines { context.stderr.line(line) }
            logs.write("IDEDistribution.critical.log", failure.lines.joined(separator: "\n") + "\n")
        } catch {
            context.stderr.line("error: exportArchive: \(error)")
            logs.write("IDEDistribution.critical.log", "\(error)\n")
        }
        context.stdout.line()
        context.stdout.line("** EXPORT FAILED **")
        context.stdout.line()
        return Self.failureExitCode
    }

    private func refuse(_ error: XcodebuildReleaseError) -> Int32 {
        context.stderr.line(error.message)
        return error.exitCode
    }

    /// Exports, returning the name of `Exported <name> to:`.
    private func export(archive: URL, options optionsURL: URL, to folder: URL, config: EmulatedHostConfig) throws
        -> String
    {
        let options = try ExportOptions.read(optionsURL)
        let info = try? Xcarchive.read(archive)
        let method = try ExportMethod.resolve(
            options.method, xcodeVersion: config.xcode.version, archiveHoldsApp: info != nil)
        guard let info else { throw ExportFailure.notAnApp }
        if let old = method.deprecatedName {
            context.stderr.line(
                "\(XcodebuildTestAction.logPrefix()) [MT] IDEDistribution: Command line name \"\(old)\" is deprecated. "
                    + "Use \"\(method.name)\" instead.")
        }
        guard options.destination == "export" else {
            // Uploading needs an App Store Connect account, which an emulated Mac never has.
            throw ExportFailure(
                domain: "IDEDistributionErrorDomain", code: 1,
                description: "(pipe-mac-emulator) destination '\(options.destination)' is not emulated; use export")
        }
        let app = info.app
        let team = options.teamID ?? app.team
        let selector = options.signingCertificate ?? method.defaultCertificate
        let settings = CommandLineBuildSettings(arguments.buildSettings)
        guard
            let identity = SigningKeychains.select(
                selector: selector, team: team, keychain: settings.signingKeychain, context: context)
        else { throw ExportFailure.noCertificate(selector, team: team ?? "") }
        let profile = try provisioningProfile(
            for: app, options: options, method: method, team: team ?? identity.team ?? "", config: config)
        guard profile.certificateSHA1s.contains(identity.sha1) else {
            throw ExportFailure.certificateNotInProfile(profile: profile.name, identity: identity.name)
        }

        let staging = stagingFolder(beside: folder).appendingPathComponent("\(app.name).app", isDirectory: true)
        defer { try? FileManager.default.removeItem(at: staging.deletingLastPathComponent()) }
        try FileManager.default.createDirectory(
            at: staging.deletingLastPathComponent(), withIntermediateDirectories: true)
        try FileManager.default.copyItem(
            at: archive.appendingPathComponent("Products").appendingPathComponent(info.applicationPath), to: staging)
        // Re-signing for distribution embeds the profile and seals the bundle again with it.
        try Data(contentsOf: profile.file).write(to: staging.appendingPathComponent("embedded.mobileprovision"))
        try Xcarchive.sealResources(of: staging)
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        try IPAWriter.write(app: staging, to: folder.appendingPathComponent("\(app.name).ipa"))
        try ExportReport(
            app: app, method: method, identity: identity, profile: profile, team: team ?? profile.team,
            architectures: [config.hostArchitecture]
        ).write(options: options, in: folder)
        return app.name
    }

    /// A hidden folder beside the export for the bundle being re-signed.
    private func stagingFolder(beside folder: URL) -> URL {
        folder.deletingLastPathComponent().appendingPathComponent(".\(folder.lastPathComponent).staging-\(getpid())")
    }

    /// The profile of `provisioningProfiles[bundle id]` among the installed ones; without an entry, manual signing
    /// has none, and automatic signing would need an account to make one, which an emulated Mac never has.
    private func provisioningProfile(
        for app: ArchivedApp, options: ExportOptions, method: ExportMethod, team: String, config: EmulatedHostConfig
    ) throws -> InstalledProfile {
        guard let specifier = options.provisioningProfiles[app.bundleIdentifier] else {
            if options.signingStyle == "manual" { throw ExportFailure.requiresProfile(app: app.name) }
            throw ExportFailure.noProfiles(bundle: app.bundleIdentifier, kind: method.profileKind)
        }
        let installed = InstalledProfiles.load(xcodeVersion: config.xcode.version, context: context)
        guard let profile = installed.first(where: { $0.isNamed(specifier) }) else {
            throw ExportFailure.profileNotInstalled(specifier, team: team)
        }
        return profile
    }
}

extension ExportFailure {
    /// The options' method against an archive without `ApplicationProperties` when the method check passed.
    static let notAnApp = ExportFailure(
        domain: "IDEFoundationErrorDomain", code: 1,
        description: "exportOptionsPlist error for key 'method': expected one of {}, but found (null)",
        severity: false)

    /// fastlane#15968 and MoKhajavi75/iOS_Development_Certificates#18.
    static func noCertificate(_ selector: String, team: String) -> ExportFailure {
        ExportFailure(
            domain: "IDECodesignResolverErrorDomain", code: 1,
            description: "No signing certificate \"\(selector)\" found",
            recovery:
                "No \"\(selector)\" signing certificate matching team ID \"\(team)\" with a private key was found.")
    }

    /// bitrise go-xcode errorfinder tests (verbatim).
    static func requiresProfile(app: String) -> ExportFailure {
        ExportFailure(
            domain: "IDEProvisioningErrorDomain", code: 9,
            description: "\"\(app).app\" requires a provisioning profile.",
            recovery: "Add a profile to the \"provisioningProfiles\" dictionary in your Export Options property list.")
    }

    /// fastlane#15968; the recovery's end (cut in the capture) completed with the build's wording (§3b).
    static func noProfiles(bundle: String, kind: String) -> ExportFailure {
        ExportFailure(
            domain: "IDEProfileLocatorErrorDomain", code: 1, description: "No profiles for '\(bundle)' were found",
            recovery:
                "Xcode couldn't find any \(kind) provisioning profiles matching '\(bundle)'. Automatic signing is "
                + "disabled and unable to generate a profile. To enable automatic signing, pass "
                + "-allowProvisioningUpdates to xcodebuild.")
    }

    /// The build's §7c text split into description and recovery (assumed for export; no capture).
    static func profileNotInstalled(_ specifier: String, team: String) -> ExportFailure {
        ExportFailure(
            domain: "IDEProfileLocatorErrorDomain", code: 1,
            description: "No profile for team '\(team)' matching '\(specifier)' found",
            recovery: "Xcode couldn't find any provisioning profiles matching '\(team)/\(specifier)'. Install the "
                + "profile (by dragging and dropping it onto Xcode's dock item) or select a different one in the "
                + "Signing & Capabilities tab of the target editor.")
    }

    /// expo/turtle#314.
    static func certificateNotInProfile(profile: String, identity: String) -> ExportFailure {
        let text = "Provisioning profile \"\(profile)\" doesn't include signing certificate \"\(identity)\""
        return ExportFailure(
            domain: "IDEProfileQualificationErrorDomain", code: 5, description: text + ".", shortText: text)
    }
}
