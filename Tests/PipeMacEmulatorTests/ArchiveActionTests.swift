import Foundation
import PipeApple
import XCTest

@testable import PipeMacEmulator

/// `xcodebuild archive` on the emulated host: the `.xcarchive` layout and plists as Pipe's own readers take them,
/// the signing identity from the keychain `OTHER_CODE_SIGN_FLAGS` names, and the failures a build or signing gives.
final class ArchiveActionTests: XCTestCase {
    private var fixture: ReleaseHostFixture!
    private var archive: URL { fixture.host.folder.appendingPathComponent("Reader.xcarchive") }

    override func setUpWithError() throws { fixture = try ReleaseHostFixture() }
    override func tearDown() { fixture = nil }

    private func read(_ url: URL) throws -> PropertyListValue {
        try PropertyListReader.read(Array(try Data(contentsOf: url)))
    }

    func testArchiveWritesTheLayoutAndPlistsThatPipeReadsBack() throws {
        try fixture.makeKeychain()
        let outcome = fixture.archive(settings: fixture.signingSettings + ["CURRENT_PROJECT_VERSION=42"])
        XCTAssertEqual(outcome.status, 0, outcome.stdout + outcome.stderr)
        XCTAssertTrue(outcome.stdout.hasPrefix("Command line invocation:\n"), outcome.stdout)
        XCTAssertTrue(outcome.stdout.contains("    IDEArchivePathOverride = \(archive.path)\n"), outcome.stdout)
        XCTAssertTrue(
            outcome.stdout.contains("Signing Identity:     \"Apple Distribution: Pipe Tests (TEAM123456)\""),
            outcome.stdout)
        XCTAssertTrue(outcome.stdout.hasSuffix("** ARCHIVE SUCCEEDED **\n\n"), outcome.stdout)

        let info = try read(archive.appendingPathComponent("Info.plist"))
        let properties = try XCTUnwrap(info["ApplicationProperties"])
        XCTAssertEqual(properties["ApplicationPath"]?.string, "Applications/Reader.app")
        XCTAssertEqual(properties["CFBundleIdentifier"]?.string, ReleaseHostFixture.bundleID)
        XCTAssertEqual(properties["CFBundleShortVersionString"]?.string, "1.0")
        XCTAssertEqual(properties["CFBundleVersion"]?.string, "42")
        XCTAssertEqual(properties["SigningIdentity"]?.string, "Apple Distribution: Pipe Tests (TEAM123456)")
        XCTAssertEqual(properties["Team"]?.string, ReleaseHostFixture.team)
        XCTAssertEqual(info["ArchiveVersion"]?.integer, 2)
        XCTAssertEqual(info["Name"]?.string, "Reader")
        XCTAssertEqual(info["SchemeName"]?.string, "Reader")
        let created = try XCTUnwrap(info["CreationDate"]?.date)
        XCTAssertLessThan(abs(created.timeIntervalSinceNow), 60)

        let app = archive.appendingPathComponent("Products/Applications/Reader.app")
        let appPlist = try Data(contentsOf: app.appendingPathComponent("Info.plist"))
        XCTAssertTrue(appPlist.starts(with: Data("bplist00".utf8)), "a built app's Info.plist is binary")
        let bundle = try AppBundleInfo.read(infoPlist: Array(appPlist), source: "Reader.app/Info.plist")
        XCTAssertEqual(
            bundle,
            AppBundleInfo(
                bundleIdentifier: ReleaseHostFixture.bundleID, shortVersion: "1.0", buildVersion: "42",
                executable: "Reader"))
        let executable = app.appendingPathComponent("Reader")
        XCTAssertTrue(FileManager.default.isExecutableFile(atPath: executable.path))
        XCTAssertEqual(Array(try Data(contentsOf: executable).prefix(4)), [0xCF, 0xFA, 0xED, 0xFE], "Mach-O 64")
        XCTAssertNotNil(try read(app.appendingPathComponent("_CodeSignature/CodeResources"))["files2"]?["Reader"])
        let dSYM = archive.appendingPathComponent("dSYMs/Reader.app.dSYM/Contents")
        XCTAssertEqual(
            try read(dSYM.appendingPathComponent("Info.plist"))["CFBundleIdentifier"]?.string,
            "com.apple.xcode.dsym.\(ReleaseHostFixture.bundleID)")
        XCTAssertTrue(
            FileManager.default.fileExists(atPath: dSYM.appendingPathComponent("Resources/DWARF/Reader").path))

        let logged = XcodebuildInvocationLog(configPath: fixture.host.configURL.path).lines()
        XCTAssertEqual(logged.count, 1, "\(logged)")
        XCTAssertTrue(logged[0].contains(" archive -scheme Reader "), logged[0])
    }

    func testTheCannedAppAndTheCommandLineSettingsNameTheApp() throws {
        try fixture.makeKeychain()
        let url = fixture.workspace.appendingPathComponent("pipe-canned-results.json")
        var canned = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(contentsOf: url)) as? [String: Any])
        var schemes = try XCTUnwrap(canned["schemes"] as? [String: Any])
        var green = try XCTUnwrap(schemes["Green"] as? [String: Any])
        green["app"] = [
            "name": "GreenApp", "bundleIdentifier": "org.example.green", "shortVersion": "2.3", "buildVersion": "7",
            "team": ReleaseHostFixture.team,
        ]
        schemes["Green"] = green
        canned["schemes"] = schemes
        try JSONSerialization.data(withJSONObject: canned).write(to: url)

        let settings = [
            "OTHER_CODE_SIGN_FLAGS=--keychain \(fixture.keychain)", "CODE_SIGN_IDENTITY=Apple Distribution",
            "MARKETING_VERSION=2.4",
        ]
        let outcome = fixture.archive(scheme: "Green", archive: "Green.xcarchive", settings: settings)
        XCTAssertEqual(outcome.status, 0, outcome.stdout + outcome.stderr)
        let info = try read(fixture.host.folder.appendingPathComponent("Green.xcarchive/Info.plist"))
        XCTAssertEqual(info["ApplicationProperties"]?["ApplicationPath"]?.string, "Applications/GreenApp.app")
        XCTAssertEqual(info["ApplicationProperties"]?["CFBundleIdentifier"]?.string, "org.example.green")
        XCTAssertEqual(info["ApplicationProperties"]?["CFBundleShortVersionString"]?.string, "2.4", "settings win")
        XCTAssertEqual(info["ApplicationProperties"]?["CFBundleVersion"]?.string, "7")
        XCTAssertEqual(info["SchemeName"]?.string, "Green")
    }

    func testABuildErrorFailsTheArchiveWithTheCompilerLinesAndLeavesNoArchive() throws {
        try fixture.makeKeychain()
        let outcome = fixture.archive(scheme: "Haptics", archive: "Reader.xcarchive")
        XCTAssertEqual(outcome.status, 65)
        let source = fixture.workspace.appendingPathComponent("Sources/Haptics/HapticEvent.swift").path
        XCTAssertTrue(outcome.stdout.contains("\(source):12:9: error: cannot find 'playSuccess' in scope\n"))
        XCTAssertTrue(outcome.stdout.contains("\n** ARCHIVE FAILED **\n"), outcome.stdout)
        XCTAssertTrue(outcome.stdout.contains("The following build commands failed:\n\tSwiftCompile normal arm64"))
        XCTAssertTrue(outcome.stdout.hasSuffix("(2 failures)\n"), outcome.stdout)
        XCTAssertFalse(outcome.stdout.contains("ARCHIVE SUCCEEDED"))
        XCTAssertFalse(FileManager.default.fileExists(atPath: archive.path))
    }

    func testAKeychainWithoutACodesigningIdentityFailsTheArchiveWithXcodesSigningError() throws {
        try fixture.makeKeychain(identity: false)
        let outcome = fixture.archive()
        XCTAssertEqual(outcome.status, 65)
        XCTAssertTrue(
            outcome.stdout.contains(
                "\(fixture.workspace.path)/Package.swift: error: No signing certificate \"Apple Distribution\" found: "
                    + "No \"Apple Distribution\" signing certificate matching team ID \"TEAM123456\" with a private "
                    + "key was found. (in target 'Reader' from project 'reader-app')\n\n** ARCHIVE FAILED **\n"),
            outcome.stdout)
        XCTAssertFalse(FileManager.default.fileExists(atPath: archive.path))

        let noTeam = fixture.archive(settings: ["OTHER_CODE_SIGN_FLAGS=--keychain \(fixture.keychain)"])
        XCTAssertEqual(noTeam.status, 65)
        XCTAssertTrue(
            noTeam.stdout.contains(
                "error: Signing for \"Reader\" requires a development team. Select a development team in the Signing "
                    + "& Capabilities editor. (in target 'Reader' from project 'reader-app')"),
            noTeam.stdout)
    }

    func testANamedProfileMustBeInstalledAndIncludeTheCertificate() throws {
        try fixture.makeKeychain()
        let named = fixture.signingSettings + ["PROVISIONING_PROFILE_SPECIFIER=\(ReleaseHostFixture.profileName)"]
        let missing = fixture.archive(settings: named)
        XCTAssertEqual(missing.status, 65)
        XCTAssertTrue(
            missing.stdout.contains(
                "error: No profile for team 'TEAM123456' matching 'Reader App Store' found: Xcode couldn't find any "
                    + "provisioning profiles matching 'TEAM123456/Reader App Store'."),
            missing.stdout)

        try fixture.installProfile(namesCertificate: false)
        let without = fixture.archive(settings: named)
        XCTAssertEqual(without.status, 65)
        XCTAssertTrue(
            without.stdout.contains(
                "error: Provisioning profile \"Reader App Store\" doesn't include signing certificate \"Apple "
                    + "Distribution: Pipe Tests (TEAM123456)\". (in target 'Reader' from project 'reader-app')"),
            without.stdout)
    }

    func testAnExistingArchiveIsReplacedAsAWhole() throws {
        try fixture.makeKeychain()
        let stale = archive.appendingPathComponent("Products/Applications/Old.app/Old")
        try FileManager.default.createDirectory(
            at: stale.deletingLastPathComponent(), withIntermediateDirectories: true)
        try Data("old".utf8).write(to: stale)
        XCTAssertEqual(fixture.archive().status, 0)
        XCTAssertFalse(FileManager.default.fileExists(atPath: stale.path), "nothing of the earlier archive is left")
        XCTAssertTrue(FileManager.default.fileExists(atPath: archive.appendingPathComponent("Info.plist").path))
    }

    func testArchiveChecksTheSchemeAndTheDestinationFirst() throws {
        let noScheme = fixture.run("xcodebuild", ["archive", "-archivePath", archive.path], in: fixture.workspace)
        XCTAssertEqual(noScheme.status, 64)
        XCTAssertTrue(noScheme.stderr.hasPrefix("xcodebuild: error: The archive action requires that the name"))

        let unshared = fixture.archive(scheme: "Missing")
        XCTAssertEqual(unshared.status, 65)
        XCTAssertTrue(unshared.stderr.contains("does not contain a scheme named \"Missing\""), unshared.stderr)

        let simulator = fixture.run(
            "xcodebuild",
            ["archive", "-scheme", "Reader", "-destination", "platform=iOS Simulator,name=iPhone 15"],
            in: fixture.workspace)
        XCTAssertEqual(simulator.status, 70)
        XCTAssertTrue(
            simulator.stderr.contains(
                "\t\t{ platform:iOS, id:dvtdevice-DVTiPhonePlaceholder-iphoneos:placeholder, name:Any iOS Device }"),
            simulator.stderr)
        XCTAssertEqual(simulator.stdout, "", "nothing is built")
    }
}
