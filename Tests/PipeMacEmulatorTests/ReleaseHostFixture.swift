import Foundation
import PipeTestSupport
import XCTest

/// An emulated host ready for `archive` and `-exportArchive`: the canned reader workspace, a keychain holding a
/// real "Apple Distribution" identity (made by openssl, imported by the emulated `security`), and a signed
/// provisioning profile that names the certificate, installed where the host's Xcode reads profiles.
final class ReleaseHostFixture {
    static let bundleID = "com.example.reader"
    static let team = "TEAM123456"
    static let profileName = "Reader App Store"
    static let profileUUID = "6E1B3D2A-8F4C-4B7E-9A61-2C5D8E0F1A34"

    let host: EmulatorHarness
    let workspace: URL
    let keychain: String
    let signing: SigningMaterialFactory
    /// Distribution logs go here rather than to the machine's /tmp.
    let temporary: URL

    init() throws {
        host = try EmulatorHarness()
        workspace = try host.copyFixture("canned-reader", as: "reader-app")
        try host.changeConfig { $0["sharedSchemes"] = ["Reader", "Haptics", "Green"] }
        let material = host.folder.appendingPathComponent("material", isDirectory: true)
        temporary = host.folder.appendingPathComponent("tmp", isDirectory: true)
        try FileManager.default.createDirectory(at: material, withIntermediateDirectories: true)
        try FileManager.default.createDirectory(at: temporary, withIntermediateDirectories: true)
        signing = try SigningMaterialFactory(folder: material)
        keychain = host.folder.appendingPathComponent("pipe-run.keychain").path
    }

    /// Makes the keychain; with `identity`, imports the `.p12` into it.
    func makeKeychain(identity: Bool = true) throws {
        XCTAssertEqual(run("security", ["create-keychain", "-p", "kc", keychain]).status, 0)
        guard identity else { return }
        let p12 = try signing.p12(password: "p12-secret", legacy: true)
        let imported = run("security", ["import", p12.path, "-k", keychain, "-P", "p12-secret", "-f", "pkcs12"])
        XCTAssertEqual(imported.status, 0, imported.stderr)
    }

    /// Installs a profile (by default one naming the certificate) as `<UUID>.mobileprovision` under `folder` of
    /// HOME: Xcode 16's folder unless told otherwise.
    func installProfile(
        namesCertificate: Bool = true, folder: String = "Library/Developer/Xcode/UserData/Provisioning Profiles"
    ) throws {
        let profile = try signing.profile(
            name: Self.profileName, uuid: Self.profileUUID, expiry: Date().addingTimeInterval(86_400 * 200),
            namesCertificate: namesCertificate)
        let target = host.home.appendingPathComponent(folder, isDirectory: true)
        try FileManager.default.createDirectory(at: target, withIntermediateDirectories: true)
        try FileManager.default.copyItem(
            at: profile, to: target.appendingPathComponent("\(Self.profileUUID).mobileprovision"))
    }

    /// Writes export options as an XML plist in the host folder and returns its path.
    func exportOptions(_ values: [String: Any], name: String = "ExportOptions-in.plist") throws -> String {
        let url = host.folder.appendingPathComponent(name)
        try PropertyListSerialization.data(fromPropertyList: values, format: .xml, options: 0).write(to: url)
        return url.path
    }

    static let manualAppStore: [String: Any] = [
        "method": "app-store-connect", "signingStyle": "manual", "provisioningProfiles": [bundleID: profileName],
    ]

    var signingSettings: [String] {
        [
            "OTHER_CODE_SIGN_FLAGS=--keychain \"\(keychain)\"", "CODE_SIGN_IDENTITY=Apple Distribution",
            "DEVELOPMENT_TEAM=\(Self.team)", "PRODUCT_BUNDLE_IDENTIFIER=\(Self.bundleID)",
        ]
    }

    /// `xcodebuild archive` of `scheme` into `archive` (in the host folder) with the fixture's signing settings.
    func archive(
        scheme: String = "Reader", archive: String = "Reader.xcarchive", settings: [String]? = nil,
        extra: [String] = []
    ) -> EmulatorHarness.Outcome {
        run(
            "xcodebuild",
            [
                "archive", "-scheme", scheme, "-configuration", "Release", "-destination", "generic/platform=iOS",
                "-archivePath", host.folder.appendingPathComponent(archive).path,
            ] + (settings ?? signingSettings) + extra, in: workspace)
    }

    /// `xcodebuild -exportArchive` of the host folder's `Reader.xcarchive` into `out`.
    func export(
        options: [String: Any] = ReleaseHostFixture.manualAppStore, keychainFlag: Bool = true,
        archive: String = "Reader.xcarchive"
    ) throws -> EmulatorHarness.Outcome {
        var arguments = [
            "-exportArchive", "-archivePath", host.folder.appendingPathComponent(archive).path, "-exportPath",
            exportFolder.path, "-exportOptionsPlist", try exportOptions(options),
        ]
        if keychainFlag { arguments.append("OTHER_CODE_SIGN_FLAGS=--keychain \"\(keychain)\"") }
        return run("xcodebuild", arguments, in: workspace)
    }

    var exportFolder: URL { host.folder.appendingPathComponent("out", isDirectory: true) }

    func run(_ program: String, _ arguments: [String], in directory: URL? = nil) -> EmulatorHarness.Outcome {
        host.run(program, arguments, in: directory, environment: ["TMPDIR": temporary.path])
    }
}
