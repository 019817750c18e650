import Foundation
import PipeApple
import PipeTestSupport
import XCTest

/// The release pair through the built `pipe-mac-emulator` binary, as a host's login runs it: the keychain made by
/// `security -i` on stdin, `xcodebuild archive`, then `xcodebuild -exportArchive`, and the `.ipa` read back by Pipe.
final class ReleaseActionsBinaryTests: XCTestCase {
    func testArchiveThenExportThroughTheBinaryGivesAnIPAPipeReads() throws {
        let fixture = try ReleaseHostFixture()
        try fixture.installProfile()
        let p12 = try fixture.signing.p12(password: "p12 secret", legacy: true)
        var environment = ProcessInfo.processInfo.environment
        environment["HOME"] = fixture.host.home.path
        environment["PIPE_EMULATOR_CONFIG"] = fixture.host.configURL.path
        environment["TMPDIR"] = fixture.temporary.path
        func emulator(_ arguments: [String], stdin: String? = nil) throws -> CommandResult {
            try CommandRunner.run(
                RepositoryPaths.emulatorBinary, arguments, environment: environment,
                currentDirectory: fixture.workspace, stdin: stdin.map { Data($0.utf8) })
        }
        let keychain = fixture.keychain
        let made = try emulator(
            ["security", "-i"],
            stdin: "create-keychain -p 'kc secret' \(keychain)\nunlock-keychain -p 'kc secret' \(keychain)\n"
                + "import \(p12.path) -k \(keychain) -P 'p12 secret' -T /usr/bin/codesign -f pkcs12\nquit\n")
        XCTAssertEqual(made.exitCode, 0, made.combined)

        let archive = fixture.host.folder.appendingPathComponent("Reader.xcarchive").path
        let archived = try emulator(
            [
                "xcodebuild", "archive", "-scheme", "Reader", "-destination", "generic/platform=iOS", "-archivePath",
                archive,
            ]
                + fixture.signingSettings)
        XCTAssertEqual(archived.exitCode, 0, archived.combined)
        XCTAssertTrue(archived.stdout.contains("** ARCHIVE SUCCEEDED **"), archived.stdout)

        let options = try fixture.exportOptions(ReleaseHostFixture.manualAppStore)
        let exported = try emulator([
            "xcodebuild", "-exportArchive", "-archivePath", archive, "-exportPath", fixture.exportFolder.path,
            "-exportOptionsPlist", options, "OTHER_CODE_SIGN_FLAGS=--keychain \(keychain)",
        ])
        XCTAssertEqual(exported.exitCode, 0, exported.combined)
        XCTAssertTrue(exported.stdout.hasSuffix("** EXPORT SUCCEEDED **\n\n"), exported.stdout)
        let ipa = try IPAReader().read(fixture.exportFolder.appendingPathComponent("Reader.ipa"))
        XCTAssertEqual(ipa.app.bundleIdentifier, ReleaseHostFixture.bundleID)
        XCTAssertEqual(ipa.app.shortVersion, "1.0")
        XCTAssertEqual(ipa.app.buildVersion, "1")
        XCTAssertEqual(ipa.sha256.count, 64)

        // The fallback when --keychain is not enough: the run's keychain on the user's search list.
        let listed = try emulator(["security", "list-keychains", "-d", "user"])
        XCTAssertEqual(listed.stdout, "    \"\(fixture.host.home.path)/Library/Keychains/login.keychain-db\"\n")
        let export = { (folder: String) in
            try emulator([
                "xcodebuild", "-exportArchive", "-archivePath", archive, "-exportPath", folder, "-exportOptionsPlist",
                options,
            ])
        }
        XCTAssertEqual(try export(fixture.host.folder.appendingPathComponent("login-only").path).exitCode, 70)
        let set = try emulator(["security", "list-keychains", "-d", "user", "-s", keychain, "login.keychain"])
        XCTAssertEqual(set.exitCode, 0, set.combined)
        XCTAssertTrue(try emulator(["security", "list-keychains"]).stdout.hasPrefix("    \"\(keychain)-db\"\n"))
        let searched = try export(fixture.host.folder.appendingPathComponent("searched").path)
        XCTAssertEqual(searched.exitCode, 0, "the search list is searched: \(searched.combined)")
        // Deleting the keychain takes it off the list, as macOS does.
        XCTAssertEqual(try emulator(["security", "delete-keychain", keychain]).exitCode, 0)
        XCTAssertEqual(
            try emulator(["security", "list-keychains"]).stdout,
            "    \"\(fixture.host.home.path)/Library/Keychains/login.keychain-db\"\n")
    }
}
