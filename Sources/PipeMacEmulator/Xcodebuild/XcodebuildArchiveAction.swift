import Foundation

/// `xcodebuild archive -scheme S -destination 'generic/platform=iOS' -archivePath X.xcarchive [settings]`: the
/// checks, the build lines of the scheme's app (canned: its `buildErrors` fail the archive as they fail a test
/// build), code signing with an identity of the keychain `OTHER_CODE_SIGN_FLAGS=--keychain` names, and an
/// `.xcarchive` (`Xcarchive`) with `** ARCHIVE SUCCEEDED **` (apple-formats.md Part 2 §3b, §4a, §4b, §7c).
struct XcodebuildArchiveAction {
    let context: EmulatorContext
    let arguments: XcodebuildArguments
    let commandLine: [String]

    private var stdout: EmulatorOutput { context.stdout }

    /// What codesign is asked for when the settings name no identity: Xcode's automatic choice for an archive.
    static let defaultIdentitySelector = "iOS Development"

    func run() -> Int32 {
        guard let (config, _) = context.loadHost() else { return EmulatorContext.configurationExitCode }
        if let delay = config.faultSettings.startDelaySeconds, delay > 0 { Thread.sleep(forTimeInterval: delay) }
        do {
            return try perform(config: config)
        } catch let error as XcodebuildError {
            context.stderr.line(error.message)
            return error.exitCode
        } catch let error as XcodebuildReleaseError {
            context.stderr.line(error.message)
            return error.exitCode
        } catch {
            context.stderr.line("xcodebuild: error: \(error)")
            return 74
        }
    }

    private func perform(config: EmulatedHostConfig) throws -> Int32 {
        guard let scheme = arguments.scheme else { throw XcodebuildReleaseError.missingScheme }
        let workspace = try XcodebuildTestAction.resolveWorkspace(arguments, context: context)
        guard config.sharedSchemes.contains(scheme) else {
            throw XcodebuildError.schemeNotFound(
                containerKind: workspace.containerKind, containerName: workspace.containerName, scheme: scheme)
        }
        for text in arguments.destinations {
            let specifier = DestinationSpecifier(text)
            guard specifier.pairs.count == 1, specifier.value("generic/platform") == "iOS" else {
                throw XcodebuildReleaseError.archiveDestination(specifier: specifier.echo, scheme: scheme)
            }
        }
        let canned = try cannedEntry(config: config, workspace: workspace, scheme: scheme)
        let settings = CommandLineBuildSettings(arguments.buildSettings)
        let app = ArchivedApp(scheme: scheme, canned: canned?.app, settings: settings)
        let started = Date()
        let archive = URL(fileURLWithPath: archivePath(scheme: scheme, at: started))

        printHeader(archive: archive, settings: settings)
        let target = "(in target '\(app.name)' from project '\(workspace.containerName)')"
        let identity: SigningIdentity?
        switch sign(app: app, settings: settings, config: config) {
        case .unsigned: identity = nil
        case .signed(let chosen): identity = chosen
        case .refused(let problem):
            stdout.line("\(projectPath(workspace)): error: \(problem) \(target)")
            stdout.line()
            stdout.line("** ARCHIVE FAILED **")
            stdout.line()
            return 65
        }

        let source = workspace.absolute("Sources/\(app.name)/\(app.name)App.swift")
        stdout.line("ComputeTargetDependencyGraph")
        stdout.line("note: Building targets in dependency order")
        stdout.line("note: Target dependency graph (1 target)")
        stdout.line("    Target '\(app.name)' in project '\(workspace.containerName)' (no dependencies)")
        stdout.line()
        stdout.line(
            BuildLogLine.compile(
                file: source, target: app.name, project: workspace.containerName, architecture: config.hostArchitecture)
        )
        stdout.line()
        Thread.sleep(forTimeInterval: max(0, canned?.buildSeconds ?? 0.2))
        let errors = (canned?.buildErrors ?? []).map { error in
            ResultBundleRecord.BuildIssue(
                file: error.file.map(workspace.absolute), line: error.line, column: error.column,
                message: error.message)
        }
        guard errors.isEmpty else { return printBuildFailure(errors, workspace: workspace, config: config) }

        let intermediates =
            "\(context.absolutePath(config.buildCache ?? "~/Library/Developer/Xcode/DerivedData"))/"
            + "\(workspace.containerName)/Build/Intermediates.noindex/ArchiveIntermediates/\(scheme)/"
            + "InstallationBuildProductsLocation/Applications/\(app.name).app"
        stdout.line("Ld \(intermediates)/\(app.name) normal \(target)")
        stdout.line()
        stdout.line("GenerateDSYMFile \(intermediates).dSYM \(intermediates)/\(app.name) \(target)")
        stdout.line()
        if let identity {
            stdout.line("CodeSign \(intermediates) \(target)")
            stdout.line("    cd \(workspace.root.path)")
            stdout.line("    Signing Identity:     \"\(identity.name)\"")
            stdout.line()
            let keychain = settings.signingKeychain.map { " --keychain \(XcodebuildTestAction.quoted([$0])[0])" } ?? ""
            stdout.line(
                "    /usr/bin/codesign --force --sign \(identity.sha1)\(keychain) --timestamp=none \(intermediates)")
            stdout.line()
        }
        try Xcarchive.write(
            app: app, identity: identity, scheme: scheme, config: config, at: archive, created: started)
        stdout.line("** ARCHIVE SUCCEEDED **")
        stdout.line()
        return 0
    }

    /// The lines xcodebuild prints before building: the invocation, the archive path as a user default, and the
    /// command line's build settings (as seen in cordova-ios#404).
    private func printHeader(archive: URL, settings: CommandLineBuildSettings) {
        stdout.line("Command line invocation:")
        stdout.line("    \(XcodebuildTestAction.invocation(commandLine))")
        stdout.line()
        stdout.line("User defaults from command line:")
        stdout.line("    IDEArchivePathOverride = \(archive.path)")
        stdout.line()
        if !settings.ordered.isEmpty {
            stdout.line("Build settings from command line:")
            for (name, value) in settings.ordered { stdout.line("    \(name) = \(value)") }
            stdout.line()
        }
        stdout.line("Prepare packages")
        stdout.line()
    }

    private enum Signing {
        case unsigned
        case signed(SigningIdentity)
        /// The error's text, without location and target.
        case refused(String)
    }

    /// Chooses the identity codesign would use, and checks a profile the settings name (Xcode 11+ texts, §7c).
    private func sign(app: ArchivedApp, settings: CommandLineBuildSettings, config: EmulatedHostConfig) -> Signing {
        if settings["CODE_SIGNING_ALLOWED"] == "NO" { return .unsigned }
        let selector = settings["CODE_SIGN_IDENTITY"] ?? Self.defaultIdentitySelector
        let profileName = settings["PROVISIONING_PROFILE_SPECIFIER"] ?? settings["PROVISIONING_PROFILE"]
        guard let team = app.team else {
            let matching = profileName.map { " that matches the selected profile \"\($0)\"" } ?? ""
            return .refused(
                "Signing for \"\(app.name)\" requires a development team. Select a development team in the Signing "
                    + "& Capabilities editor\(matching).")
        }
        guard
            let identity = SigningKeychains.select(
                selector: selector, team: team, keychain: settings.signingKeychain, context: context)
        else {
            return .refused(
                "No signing certificate \"\(selector)\" found: No \"\(selector)\" signing certificate matching team ID "
                    + "\"\(team)\" with a private key was found.")
        }
        guard let profileName else { return .signed(identity) }
        let installed = InstalledProfiles.load(xcodeVersion: config.xcode.version, context: context)
        guard let profile = installed.first(where: { $0.isNamed(profileName) }) else {
            return .refused(
                "No profile for team '\(team)' matching '\(profileName)' found: Xcode couldn't find any provisioning "
                    + "profiles matching '\(team)/\(profileName)'. Install the profile (by dragging and dropping it "
                    + "onto Xcode's dock item) or select a different one in the Signing & Capabilities tab of the "
                    + "target editor.")
        }
        guard profile.certificateSHA1s.contains(identity.sha1) else {
            return .refused(
                "Provisioning profile \"\(profile.name)\" doesn't include signing certificate \"\(identity.name)\".")
        }
        return .signed(identity)
    }

    /// The compiler's lines, the banner and the failed commands, as a failed `xcodebuild build` ends; exit 65.
    private func printBuildFailure(
        _ errors: [ResultBundleRecord.BuildIssue], workspace: TestWorkspace, config: EmulatedHostConfig
    ) -> Int32 {
        for error in errors {
            stdout.line("\(error.file ?? "<unknown>"):\(error.line ?? 0):\(error.column ?? 0): error: \(error.message)")
        }
        stdout.line()
        stdout.line("** ARCHIVE FAILED **")
        stdout.line()
        stdout.line()
        let commands = BuildLogLine.failedCommands(
            for: errors, workspace: workspace, architecture: config.hostArchitecture)
        stdout.line("The following build commands failed:")
        for command in commands { stdout.line("\t\(command)") }
        stdout.line("(\(commands.count) failure\(commands.count == 1 ? "" : "s"))")
        return 65
    }

    /// Canned mode needs the scheme's entry, as `test` does; real mode compiles nothing for an archive and takes
    /// the entry when there is one.
    private func cannedEntry(config: EmulatedHostConfig, workspace: TestWorkspace, scheme: String) throws
        -> CannedResults.Scheme?
    {
        let file = workspace.root.appendingPathComponent(CannedResults.fileName)
        if config.mode == .real, !FileManager.default.fileExists(atPath: file.path) { return nil }
        let canned = try CannedResults.load(root: workspace.root)
        if let entry = canned.schemes[scheme] { return entry }
        if config.mode == .real { return nil }
        throw XcodebuildError.cannedResults(
            "\(file.path) has no entry for scheme \"\(scheme)\" (it has: "
                + "\(canned.schemes.keys.sorted().joined(separator: ", "))); add one or unshare the scheme")
    }

    /// `-archivePath` (`.xcarchive` added when missing, as Xcode does), else Xcode's Archives folder:
    /// `~/Library/Developer/Xcode/Archives/<yyyy-MM-dd>/<Scheme> <dd-MM-yyyy, HH.mm>.xcarchive` (assumed shape).
    private func archivePath(scheme: String, at date: Date) -> String {
        if let given = arguments.archivePath {
            let path = context.absolutePath(given)
            return path.hasSuffix(".xcarchive") ? path : path + ".xcarchive"
        }
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.dateFormat = "yyyy-MM-dd"
        let day = formatter.string(from: date)
        formatter.dateFormat = "dd-MM-yyyy, HH.mm"
        return context.absolutePath(
            "~/Library/Developer/Xcode/Archives/\(day)/\(scheme) \(formatter.string(from: date)).xcarchive")
    }

    /// Where a signing error points: the project (or workspace) given, else the package's manifest.
    private func projectPath(_ workspace: TestWorkspace) -> String {
        if let given = arguments.project ?? arguments.workspace { return context.absolutePath(given) }
        return workspace.root.appendingPathComponent("Package.swift").path
    }
}
