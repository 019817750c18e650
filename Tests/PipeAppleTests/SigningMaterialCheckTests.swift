import Foundation
import PipeApple
import PipeBasics
import PipeTestSupport
import XCTest

/// The coordinator's checks of signing material, on certificates, `.p12` files and profiles made by `openssl` here.
final class SigningMaterialCheckTests: XCTestCase {
    private var folder: TemporaryDirectory!
    private var factory: SigningMaterialFactory!
    private let now = Date()

    override func setUpWithError() throws {
        folder = try TemporaryDirectory(prefix: "pipe-signing")
        factory = try SigningMaterialFactory(folder: folder.url)
    }

    override func tearDown() { folder.remove() }

    private func material(p12: URL, password: String, profiles: [URL]) throws -> SigningMaterialCheck.Material {
        SigningMaterialCheck.Material(
            p12Name: "DIST_P12", p12: try Data(contentsOf: p12), password: password,
            profiles: try profiles.map {
                ("PROFILE_\($0.deletingPathExtension().lastPathComponent)", try Data(contentsOf: $0))
            })
    }

    func testAGoodP12AndProfilePassWithTheFactsOfBoth() throws {
        let p12 = try factory.p12(password: "correct horse")
        let profile = try factory.profile(expiry: now.addingTimeInterval(86_400 * 30))
        let checked = try SigningMaterialCheck.check(
            material(p12: p12, password: "correct horse", profiles: [profile]), now: now
        ).get()
        XCTAssertEqual(checked.identity.sha1, try factory.certificateSHA1())
        XCTAssertTrue(checked.identity.subject.contains("CN=Apple Distribution: Pipe Tests (TEAM123456)"))
        XCTAssertEqual(checked.profiles.map(\.uuid), ["6E1B3D2A-8F4C-4B7E-9A61-2C5D8E0F1A34"])
        XCTAssertEqual(checked.profiles.first?.team, "TEAM123456")
        XCTAssertEqual(checked.profiles.first?.name, "Reader App Store")
        XCTAssertEqual(checked.profiles.first?.fileName, "6E1B3D2A-8F4C-4B7E-9A61-2C5D8E0F1A34.mobileprovision")
    }

    func testALegacyRC2And3DESP12OpensThroughTheLegacyProvider() throws {
        let p12 = try factory.p12(password: "keychain", legacy: true)
        // The file really is legacy: openssl names RC2 for its certificate bag.
        let info = try CommandRunner.run(
            URL(fileURLWithPath: "/usr/bin/openssl"),
            ["pkcs12", "-info", "-in", p12.path, "-noout", "-passin", "pass:keychain", "-legacy"])
        XCTAssertTrue(info.stderr.contains("RC2") || info.stdout.contains("RC2"), info.combined)
        let identity = try PKCS12Identity.open(try Data(contentsOf: p12), password: "keychain")
        XCTAssertEqual(identity.sha1, try factory.certificateSHA1())
        XCTAssertGreaterThan(identity.notAfter, now)
    }

    func testAWrongPasswordIsRefusedWithoutShowingIt() throws {
        let p12 = try factory.p12(password: "right-one")
        let profile = try factory.profile(expiry: now.addingTimeInterval(86_400))
        let result = SigningMaterialCheck.check(
            try material(p12: p12, password: "wrong-guess", profiles: [profile]), now: now)
        guard case .failure(let error) = result else { return XCTFail("a wrong password passed") }
        XCTAssertTrue(
            error.description.contains("DIST_P12: the .p12 does not open with its password"), error.description)
        XCTAssertFalse(error.description.contains("wrong-guess"))
        XCTAssertFalse(error.description.contains("right-one"))
    }

    func testAnExpiredProfileAndOneThatDoesNotNameTheCertificateAreRefused() throws {
        let p12 = try factory.p12(password: "pw")
        let expired = try factory.profile(expiry: now.addingTimeInterval(-3_600), file: "old.mobileprovision")
        let other = try factory.profile(
            name: "Other", uuid: "11111111-2222-3333-4444-555555555555", expiry: now.addingTimeInterval(86_400),
            namesCertificate: false, file: "other.mobileprovision")
        let result = SigningMaterialCheck.check(
            try material(p12: p12, password: "pw", profiles: [expired, other]), now: now)
        guard case .failure(let error) = result else { return XCTFail("an expired profile passed") }
        XCTAssertEqual(error.problems.count, 2, error.description)
        XCTAssertTrue(error.problems[0].hasPrefix("PROFILE_old: the profile 'Reader App Store'"), error.problems[0])
        XCTAssertTrue(error.problems[0].contains("expired on"), error.problems[0])
        XCTAssertTrue(error.problems[1].contains("does not name the certificate in DIST_P12"), error.problems[1])
    }

    func testAFileThatIsNoP12OrNoProfileIsRefused() throws {
        let garbage = folder.appending("garbage")
        try Data("not a p12".utf8).write(to: garbage)
        let result = SigningMaterialCheck.check(
            try material(p12: garbage, password: "x", profiles: [garbage]), now: now)
        guard case .failure(let error) = result else { return XCTFail("garbage passed") }
        XCTAssertTrue(error.problems[0].contains("not a PKCS#12"), error.description)
        XCTAssertTrue(error.problems[1].contains("not a CMS signed message"), error.description)
    }
}
