import Foundation
import PipeApple
import XCTest

@testable import PipeMacEmulator

/// `xcodebuild -exportArchive` on the emulated host: an `.ipa` Pipe's `IPAReader` reads, the files beside it, the
/// method names of the host's Xcode, and the signing-asset failures with Xcode's texts and exit 70.
final class ExportArchiveTests: XCTestCase {
    private var fixture: ReleaseHostFixture!
    private var out: URL { fixture.exportFolder }

    override func setUpWithError() throws {
        fixture = try ReleaseHostFixture()
        try fixture.makeKeychain()
        let archived = fixture.archive()
        XCTAssertEqual(archived.status, 0, archived.stdout)
    }

    override func tearDown() { fixture = nil }

    private func assertExportFailed(
        _ outcome: EmulatorHarness.Outcome, with line: String, file: StaticString = #filePath, line number: UInt = #line
    ) {
        XCTAssertEqual(outcome.status, 70, outcome.stderr, file: file, line: number)
        XCTAssertTrue(outcome.stderr.contains("\n\(line)\n"), outcome.stderr, file: file, line: number)
        XCTAssertEqual(outcome.stdout, "\n** EXPORT FAILED **\n\n", file: file, line: number)
        XCTAssertFalse(
            FileManager.default.fileExists(atPath: out.appendingPathComponent("Reader.ipa").path), file: file,
            line: number)
    }

    func testExportWritesAnIPAThatPipesReaderReadsAndTheFilesBesideIt() throws {
        try fixture.installProfile()
        let outcome = try fixture.export()
        XCTAssertEqual(outcome.status, 0, outcome.stderr)
        XCTAssertEqual(outcome.stdout, "Exported Reader to: \(out.path)\n** EXPORT SUCCEEDED **\n\n")
        XCTAssertTrue(
            outcome.stderr.contains(
                "[MT] IDEDistribution: -[IDEDistributionLogging _createLoggingBundleAtPath:]: Created bundle at path \""
                    + fixture.temporary.path + "/Reader_"),
            outcome.stderr)
        XCTAssertFalse(outcome.stderr.contains("deprecated"), "app-store-connect is Xcode 16's own name")

        let ipa = try IPAReader().read(out.appendingPathComponent("Reader.ipa"))
        XCTAssertEqual(ipa.appPath, "Payload/Reader.app")
        XCTAssertEqual(
            ipa.app,
            AppBundleInfo(
                bundleIdentifier: ReleaseHostFixture.bundleID, shortVersion: "1.0", buildVersion: "1",
                executable: "Reader"))

        let options = try PropertyListReader.read(
            Array(try Data(contentsOf: out.appendingPathComponent("ExportOptions.plist"))))
        XCTAssertEqual(options["method"]?.string, "app-store-connect")
        XCTAssertEqual(options["teamID"]?.string, ReleaseHostFixture.team)
        XCTAssertEqual(
            options["provisioningProfiles"]?[ReleaseHostFixture.bundleID]?.string, ReleaseHostFixture.profileName)
        let summary = try PropertyListReader.read(
            Array(try Data(contentsOf: out.appendingPathComponent("DistributionSummary.plist"))))
        let bundle = try XCTUnwrap(summary["Reader.ipa"]?.array?.first)
        XCTAssertEqual(bundle["versionNumber"]?.string, "1.0")
        XCTAssertEqual(bundle["buildNumber"]?.string, "1")
        XCTAssertEqual(bundle["certificate"]?["SHA1"]?.string, try fixture.signing.certificateSHA1())
        XCTAssertEqual(bundle["certificate"]?["type"]?.string, "Apple Distribution")
        XCTAssertEqual(bundle["profile"]?["UUID"]?.string, ReleaseHostFixture.profileUUID)
        XCTAssertEqual(bundle["team"]?["id"]?.string, ReleaseHostFixture.team)
        let packaging = try String(contentsOf: out.appendingPathComponent("Packaging.log"), encoding: .utf8)
        XCTAssertTrue(packaging.contains("Processing step: IDEDistributionSigningAssetsStep"), packaging)

        let logged = XcodebuildInvocationLog(configPath: fixture.host.configURL.path).lines()
        XCTAssertEqual(logged.count, 2, "\(logged)")
        XCTAssertTrue(logged[1].contains(" -exportArchive -archivePath "), logged[1])
    }

    func testTheIPAHoldsTheAppWithTheProfileEmbeddedAndOnlyNamesInsidePayload() throws {
        try fixture.installProfile()
        XCTAssertEqual(try fixture.export().status, 0)
        let listing = try XCTUnwrap(
            String(
                data: try Data(contentsOf: out.appendingPathComponent("Reader.ipa")), encoding: .isoLatin1))
        for name in [
            "Payload/Reader.app/Info.plist", "Payload/Reader.app/Reader", "Payload/Reader.app/embedded.mobileprovision",
            "Payload/Reader.app/_CodeSignature/CodeResources",
        ] {
            XCTAssertTrue(listing.contains(name), "the .ipa has no \(name)")
        }
        XCTAssertFalse(listing.contains("staging"), "the re-signing folder leaked into the .ipa")
        let leftovers = try FileManager.default.contentsOfDirectory(atPath: fixture.host.folder.path)
        XCTAssertFalse(leftovers.contains { $0.contains("staging") }, "\(leftovers)")
    }

    func testAnOldMethodNameIsTakenWithXcodesDeprecationLine() throws {
        try fixture.installProfile()
        var options = ReleaseHostFixture.manualAppStore
        options["method"] = "app-store"
        let outcome = try fixture.export(options: options)
        XCTAssertEqual(outcome.status, 0, outcome.stderr)
        XCTAssertTrue(
            outcome.stderr.contains(
                "[MT] IDEDistribution: Command line name \"app-store\" is deprecated. Use \"app-store-connect\" "
                    + "instead.\n"),
            outcome.stderr)
    }

    func testABadMethodFailsWithTheOptionsErrorOfTheHostsXcode() throws {
        try fixture.installProfile()
        var options = ReleaseHostFixture.manualAppStore
        options["method"] = "developer-id"
        let text =
            "exportOptionsPlist error for key 'method': expected one of {app-store-connect, release-testing, "
            + "enterprise, debugging}, but found developer-id"
        let outcome = try fixture.export(options: options)
        assertExportFailed(
            outcome,
            with: "Error Domain=IDEFoundationErrorDomain Code=1 \"\(text)\" UserInfo={NSLocalizedDescription=\(text)}")
        XCTAssertTrue(outcome.stderr.contains("error: exportArchive: \(text)\n\n"), outcome.stderr)

        // Xcode 15.2 knows only the old names (15.3 renamed them).
        try fixture.host.changeConfig { $0["xcode"] = ["version": "15.2", "build": "15C500b"] }
        let modern = try fixture.export()
        assertExportFailed(
            modern,
            with: "error: exportArchive: exportOptionsPlist error for key 'method': expected one of {app-store, "
                + "ad-hoc, enterprise, development}, but found app-store-connect")
    }

    func testProfilesAreFoundInTheFolderTheHostsXcodeReads() throws {
        try fixture.installProfile(folder: "Library/MobileDevice/Provisioning Profiles")
        XCTAssertEqual(try fixture.export().status, 0, "Xcode 16 still reads the old folder")

        try fixture.host.changeConfig { $0["xcode"] = ["version": "15.4", "build": "15F31d"] }
        try FileManager.default.removeItem(
            at: fixture.host.home.appendingPathComponent("Library/MobileDevice/Provisioning Profiles"))
        try FileManager.default.removeItem(at: out)
        try fixture.installProfile()
        var options = ReleaseHostFixture.manualAppStore
        options["method"] = "app-store"
        let outcome = try fixture.export(options: options)
        assertExportFailed(
            outcome, with: "error: exportArchive: No profile for team 'TEAM123456' matching 'Reader App Store' found")
        XCTAssertTrue(
            outcome.stderr.contains(
                "Error Domain=IDEProfileLocatorErrorDomain Code=1 \"No profile for team 'TEAM123456' matching 'Reader "
                    + "App Store' found\" UserInfo={IDEDistributionIssueSeverity=3,"),
            outcome.stderr)
    }

    func testAMissingProfileFailsTheExport() throws {
        let outcome = try fixture.export()
        assertExportFailed(
            outcome, with: "error: exportArchive: No profile for team 'TEAM123456' matching 'Reader App Store' found")
        let logs = try FileManager.default.contentsOfDirectory(atPath: fixture.temporary.path)
        let bundle = try XCTUnwrap(logs.first { $0.hasSuffix(".xcdistributionlogs") })
        let critical = try String(
            contentsOf: fixture.temporary.appendingPathComponent("\(bundle)/IDEDistribution.critical.log"),
            encoding: .utf8)
        XCTAssertTrue(critical.contains("No profile for team"), critical)

        var manual = ReleaseHostFixture.manualAppStore
        manual["provisioningProfiles"] = [String: String]()
        assertExportFailed(
            try fixture.export(options: manual),
            with: "Error Domain=IDEProvisioningErrorDomain Code=9 \"\"Reader.app\" requires a provisioning profile.\" "
                + "UserInfo={IDEDistributionIssueSeverity=3, NSLocalizedDescription=\"Reader.app\" requires a "
                + "provisioning profile., NSLocalizedRecoverySuggestion=Add a profile to the \"provisioningProfiles\" "
                + "dictionary in your Export Options property list.}")
        assertExportFailed(
            try fixture.export(options: ["method": "app-store-connect"]),
            with: "error: exportArchive: No profiles for 'com.example.reader' were found")
    }

    func testAMissingIdentityFailsTheExport() throws {
        try fixture.installProfile()
        let outcome = try fixture.export(keychainFlag: false)
        assertExportFailed(outcome, with: "error: exportArchive: No signing certificate \"iOS Distribution\" found")
        XCTAssertTrue(
            outcome.stderr.contains(
                "Error Domain=IDECodesignResolverErrorDomain Code=1 \"No signing certificate \"iOS Distribution\" "
                    + "found\" UserInfo={IDEDistributionIssueSeverity=3, NSLocalizedDescription=No signing certificate "
                    + "\"iOS Distribution\" found, NSLocalizedRecoverySuggestion=No \"iOS Distribution\" signing "
                    + "certificate matching team ID \"TEAM123456\" with a private key was found.}"),
            outcome.stderr)

        var development = ReleaseHostFixture.manualAppStore
        development["method"] = "debugging"
        assertExportFailed(
            try fixture.export(options: development),
            with: "error: exportArchive: No signing certificate \"iOS Development\" found")
    }

    func testAProfileWithoutTheCertificateFailsTheExport() throws {
        try fixture.installProfile(namesCertificate: false)
        let outcome = try fixture.export()
        assertExportFailed(
            outcome,
            with: "error: exportArchive: Provisioning profile \"Reader App Store\" doesn't include signing "
                + "certificate \"Apple Distribution: Pipe Tests (TEAM123456)\"")
        XCTAssertTrue(outcome.stderr.contains("Error Domain=IDEProfileQualificationErrorDomain Code=5"), outcome.stderr)
    }

    func testTheFlagsAndTheArchiveAreCheckedBeforeAnyExport() throws {
        let noOptions = fixture.run(
            "xcodebuild", ["-exportArchive", "-archivePath", "Reader.xcarchive", "-exportPath", out.path],
            in: fixture.host.folder)
        XCTAssertEqual(noOptions.status, 64)
        XCTAssertEqual(
            noOptions.stderr,
            "xcodebuild: error: The flag -exportOptionsPlist is required when specifying -exportArchive.\n")

        let missing = fixture.host.folder.appendingPathComponent("Missing.xcarchive").path
        let notFound = try fixture.export(archive: "Missing.xcarchive")
        XCTAssertEqual(notFound.status, 70)
        XCTAssertEqual(notFound.stderr, "error: archive not found at path '\(missing)'\n")
        XCTAssertEqual(notFound.stdout, "** EXPORT FAILED **\n")

        let noFile = fixture.run(
            "xcodebuild",
            [
                "-exportArchive", "-archivePath", "Reader.xcarchive", "-exportPath", out.path, "-exportOptionsPlist",
                "nope.plist",
            ], in: fixture.host.folder)
        assertExportFailed(
            noFile,
            with: "error: exportArchive: The file “nope.plist” couldn’t be opened because there is no such file.")

        // An archive without ApplicationProperties is not a single-app archive (openradar 35594336).
        let info = fixture.host.folder.appendingPathComponent("Reader.xcarchive/Info.plist")
        try PropertyListSerialization.data(
            fromPropertyList: ["ArchiveVersion": 2, "Name": "Reader"], format: .xml, options: 0
        ).write(to: info)
        assertExportFailed(
            try fixture.export(),
            with: "error: exportArchive: exportOptionsPlist error for key 'method': expected one of {}, but found "
                + "app-store-connect")
    }
}
