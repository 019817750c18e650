import Foundation
import PipeTestSupport
import XCTest

/// The emulated `security` as a process: keychain state per file, `-i` on stdin, the `.p12` checked by openssl,
/// and the argv log that shows what was on each command line.
final class SecurityToolTests: XCTestCase {
    private var folder: TemporaryDirectory!

    override func setUpWithError() throws { folder = try TemporaryDirectory(prefix: "pipe-security") }
    override func tearDown() { folder.remove() }

    private func security(_ arguments: [String], stdin: String? = nil) throws -> CommandResult {
        try CommandRunner.run(
            RepositoryPaths.emulatorBinary, ["security"] + arguments, environment: ["HOME": folder.url.path],
            stdin: stdin.map { Data($0.utf8) })
    }

    func testAKeychainIsMadeFilledAndDeletedWithPasswordsOnlyOnStdin() throws {
        let factory = try SigningMaterialFactory(folder: folder.url)
        let p12 = try factory.p12(password: "p12-secret", legacy: true)
        let keychain = folder.appending("pipe-run.keychain").path
        let setUp = [
            "create-keychain -p 'kc secret' \(keychain)", "set-keychain-settings -lut 21600 \(keychain)",
            "unlock-keychain -p 'kc secret' \(keychain)",
            "import \(p12.path) -k \(keychain) -P p12-secret -T /usr/bin/codesign -f pkcs12",
            "set-key-partition-list -S apple-tool:,apple: -s -k 'kc secret' \(keychain)",
        ]
        let made = try security(["-i"], stdin: setUp.joined(separator: "\n") + "\n")
        XCTAssertEqual(made.exitCode, 0, made.combined)
        XCTAssertEqual(made.stdout, "1 identity imported.\n")
        XCTAssertTrue(FileManager.default.fileExists(atPath: keychain + "-db"), "macOS writes <name>.keychain-db")

        let found = try security(["find-identity", "-v", "-p", "codesigning", keychain])
        XCTAssertEqual(
            found.stdout,
            "  1) \(try factory.certificateSHA1()) \"Apple Distribution: Pipe Tests (TEAM123456)\"\n"
                + "     1 valid identities found\n")

        XCTAssertFalse(
            try String(contentsOf: URL(fileURLWithPath: keychain + "-db"), encoding: .utf8).contains("kc secret"),
            "the keychain keeps only a digest")

        let wrong = try security(["-i"], stdin: "import \(p12.path) -k \(keychain) -P nope\n")
        XCTAssertEqual(wrong.exitCode, 1)
        XCTAssertTrue(wrong.stderr.contains("SecKeychainItemImport: MAC verification failed"), wrong.combined)
        let partition = try security(["-i"], stdin: "set-key-partition-list -S apple: -s -k bad \(keychain)\n")
        XCTAssertTrue(partition.stderr.contains("SecKeychainItemSetAccessWithPassword"), partition.combined)

        XCTAssertEqual(try security(["delete-keychain", keychain]).exitCode, 0)
        XCTAssertFalse(FileManager.default.fileExists(atPath: keychain + "-db"))
        XCTAssertEqual(try security(["delete-keychain", keychain]).exitCode, 50)

        let argv = try String(
            contentsOf: folder.appending("Library/Logs/pipe-emulator/security-argv.log"), encoding: .utf8)
        XCTAssertEqual(argv.split(separator: "\n").count, 6, argv)
        XCTAssertFalse(argv.contains("secret"), "a password reached a command line: \(argv)")
    }
}
