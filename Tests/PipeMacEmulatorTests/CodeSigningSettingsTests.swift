import XCTest

@testable import PipeMacEmulator

/// How the emulated Xcode reads the signing settings of a command line: the keychain in `OTHER_CODE_SIGN_FLAGS`
/// (a list setting Xcode splits at blanks, honouring quotes and backslashes) and which identity a selector takes.
final class CodeSigningSettingsTests: XCTestCase {
    func testTheKeychainIsOneWordOfTheListSettingEvenWithBlanksInIt() {
        let quoted = CommandLineBuildSettings([
            "OTHER_CODE_SIGN_FLAGS=--timestamp --keychain \"/Users/ci/Application Support/pipe \\\"1\\\".keychain\""
        ])
        XCTAssertEqual(quoted.signingKeychain, "/Users/ci/Application Support/pipe \"1\".keychain")
        let escaped = CommandLineBuildSettings(["OTHER_CODE_SIGN_FLAGS=--keychain /tmp/a\\ b.keychain"])
        XCTAssertEqual(escaped.signingKeychain, "/tmp/a b.keychain")
        XCTAssertNil(CommandLineBuildSettings(["OTHER_CODE_SIGN_FLAGS=--keychain"]).signingKeychain)
        XCTAssertNil(CommandLineBuildSettings(["CODE_SIGN_IDENTITY=Apple Distribution"]).signingKeychain)
        XCTAssertEqual(
            CommandLineBuildSettings(["A=1", "A=2"])["A"], "2", "a later setting wins, as on Xcode's command line")
    }

    func testSelectorsMatchOldAndNewCertificateNamesOfTheTeam() {
        let distribution = SigningIdentity(
            sha1: String(repeating: "AB", count: 20), name: "Apple Distribution: Pipe Tests (TEAM123456)")
        let oldDistribution = SigningIdentity(sha1: "00", name: "iPhone Distribution: Old Ltd (OLD0000000)")
        XCTAssertTrue(distribution.matches(selector: "iOS Distribution", team: "TEAM123456"))
        XCTAssertTrue(oldDistribution.matches(selector: "iOS Distribution", team: nil))
        XCTAssertFalse(distribution.matches(selector: "iOS Distribution", team: "OTHER00000"), "another team's")
        XCTAssertFalse(distribution.matches(selector: "iOS Development", team: nil))
        XCTAssertTrue(distribution.matches(selector: "Apple Distribution: Pipe", team: nil), "a name prefix")
        XCTAssertTrue(distribution.matches(selector: String(repeating: "ab", count: 20), team: nil), "a SHA-1")
        XCTAssertEqual(distribution.team, "TEAM123456")
        XCTAssertEqual(distribution.kind, "Apple Distribution")
    }
}
