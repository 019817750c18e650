import Foundation
import PipeApple
import PipeTestSupport
import XCTest

/// The `security -i` commands of a signing layer's keychain, fed to the emulated `security` (which reads them as
/// the real one does and logs every argv).
final class TemporaryKeychainTests: XCTestCase {
    func testTheCommandsMakeAKeychainWithTheIdentityAndDeleteItWithNoPasswordOnACommandLine() throws {
        let folder = try TemporaryDirectory(prefix: "pipe-keychain")
        defer { folder.remove() }
        let factory = try SigningMaterialFactory(folder: folder.url)
        let p12Password = "it's a \"p12\" pw"
        let p12 = try factory.p12(password: "it's simple")
        let keychain = TemporaryKeychain(path: folder.appending("pipe-run 1.keychain").path)
        XCTAssertEqual(keychain.password.count, 64)
        XCTAssertNotEqual(keychain.password, TemporaryKeychain(path: keychain.path).password)
        XCTAssertThrowsError(try keychain.setUpCommands(p12Path: p12.path, p12Password: p12Password))

        func security(_ arguments: [String], stdin: String? = nil) throws -> CommandResult {
            try CommandRunner.run(
                RepositoryPaths.emulatorBinary, ["security"] + arguments, environment: ["HOME": folder.url.path],
                stdin: stdin.map { Data($0.utf8) })
        }
        let made = try security(
            ["-i"], stdin: try keychain.setUpCommands(p12Path: p12.path, p12Password: "it's simple"))
        XCTAssertEqual(made.exitCode, 0, made.combined)
        let found = try security(["find-identity", "-v", "-p", "codesigning", keychain.path])
        XCTAssertTrue(found.stdout.contains("\(try factory.certificateSHA1()) \"Apple Distribution"), found.combined)
        XCTAssertEqual(keychain.codeSignFlags, "--keychain \"\(keychain.path)\"")

        XCTAssertEqual(try security(["-i"], stdin: try keychain.tearDownCommands()).exitCode, 0)
        XCTAssertFalse(FileManager.default.fileExists(atPath: keychain.path + "-db"))
        let argv = try String(
            contentsOf: folder.appending("Library/Logs/pipe-emulator/security-argv.log"), encoding: .utf8)
        XCTAssertEqual(argv, "security -i\nsecurity find-identity -v -p codesigning \(keychain.path)\nsecurity -i\n")
    }

    func testTheCodeSignFlagsKeepAPathWithBlanksQuotesAndBackslashesOneWord() {
        let keychain = TemporaryKeychain(path: #"/Users/ci/My "odd"\dir/pipe-run.keychain"#)
        XCTAssertEqual(keychain.codeSignFlags, #"--keychain "/Users/ci/My \"odd\"\\dir/pipe-run.keychain""#)
    }

    func testProfilesGoWhereTheHostsXcodeReadsThem() {
        XCTAssertEqual(
            TemporaryKeychain.profilesFolder(xcodeMajorVersion: 16),
            "Library/Developer/Xcode/UserData/Provisioning Profiles")
        XCTAssertEqual(
            TemporaryKeychain.profilesFolder(xcodeMajorVersion: 15), "Library/MobileDevice/Provisioning Profiles")
    }
}
