import Foundation

/// What a release layer built and brought back, as a release manager asks about it: which run, layer and commit;
/// each file with its SHA-256 and size; the app's identity and version; how it was signed; which Xcode built it.
/// `pipe verify` ties this record to the commit's gates and to the sign-offs made against this build.
public struct ReleaseBuild: Sendable, Equatable, Codable {
    public var runID: String
    public var layer: String
    /// The full commit SHA the run checked out (lowercase hex).
    public var commit: String
    public var files: [ReleaseFile]
    public var app: ReleaseApp
    public var signing: ReleaseSigning?
    public var toolchain: ReleaseToolchain
    public var recordedAt: Date

    public init(
        runID: String, layer: String, commit: String, files: [ReleaseFile], app: ReleaseApp,
        signing: ReleaseSigning?, toolchain: ReleaseToolchain, recordedAt: Date
    ) {
        self.runID = runID
        self.layer = layer
        self.commit = commit
        self.files = files
        self.app = app
        self.signing = signing
        self.toolchain = toolchain
        self.recordedAt = recordedAt
    }

    /// The shipped file: the `.ipa`, else the exported folder.
    public var shipped: ReleaseFile? {
        files.first { $0.kind == .ipa } ?? files.first { $0.kind == .exportedFolder }
    }

    /// The `.ipa`'s SHA-256 (lowercase hex), the key sign-offs and `pipe verify --ipa` find the build by.
    public var ipaSHA256: String? { files.first { $0.kind == .ipa }?.sha256 }
}

/// One file a release layer brought back, beside the run's other artifacts.
public struct ReleaseFile: Sendable, Equatable, Codable {
    public enum Kind: String, Sendable, Codable, CaseIterable {
        case ipa
        /// An export that is a folder rather than one `.ipa` (a macOS app, say); its digest is over its manifest.
        case exportedFolder = "exported-folder"
        /// The dSYMs, as one archive.
        case dsyms
        case archiveLog = "archive-log"
        case exportLog = "export-log"
        /// The `.xcarchive`, kept only where the layer says `keep-archive: true`.
        case xcarchive
    }

    public var kind: Kind
    /// Relative to the project folder, as the run's other artifacts are (`artifacts/<run>/<layer>/Reader.ipa`).
    public var path: String
    /// Lowercase hex.
    public var sha256: String
    public var size: Int64

    public init(kind: Kind, path: String, sha256: String, size: Int64) {
        self.kind = kind
        self.path = path
        self.sha256 = sha256
        self.size = size
    }
}

/// The app as its exported Info.plist names it.
public struct ReleaseApp: Sendable, Equatable, Codable {
    /// `CFBundleIdentifier`.
    public var bundleID: String
    /// `CFBundleShortVersionString`, the marketing version ("1.4.2").
    public var shortVersion: String?
    /// `CFBundleVersion`, the build number a checklist's `app_build` is checked against (often reused across
    /// builds, which is why sign-offs also record the `.ipa`'s SHA-256).
    public var buildVersion: String

    public init(bundleID: String, shortVersion: String?, buildVersion: String) {
        self.bundleID = bundleID
        self.shortVersion = shortVersion
        self.buildVersion = buildVersion
    }
}

/// How the build was signed.
public struct ReleaseSigning: Sendable, Equatable, Codable {
    /// The signing certificate's subject ("Apple Distribution: Example Ltd (ABCDE12345)").
    public var identitySubject: String
    /// The certificate's SHA-1, as `security find-identity` prints it (uppercase hex).
    public var identitySHA1: String
    public var profiles: [ProvisioningProfileFacts]

    public init(identitySubject: String, identitySHA1: String, profiles: [ProvisioningProfileFacts]) {
        self.identitySubject = identitySubject
        self.identitySHA1 = identitySHA1
        self.profiles = profiles
    }
}

/// A provisioning profile the export used.
public struct ProvisioningProfileFacts: Sendable, Equatable, Codable {
    public var name: String
    public var uuid: String
    /// The team identifier (`TeamIdentifier`).
    public var team: String
    public var expires: Date

    public init(name: String, uuid: String, team: String, expires: Date) {
        self.name = name
        self.uuid = uuid
        self.team = team
        self.expires = expires
    }
}

/// The tools that built it.
public struct ReleaseToolchain: Sendable, Equatable, Codable {
    /// "16.2".
    public var xcodeVersion: String
    /// Xcode's build ("16C5032a").
    public var xcodeBuild: String?
    /// The SDK, as the archive's Info.plist names it ("iphoneos18.2").
    public var sdk: String?

    public init(xcodeVersion: String, xcodeBuild: String?, sdk: String?) {
        self.xcodeVersion = xcodeVersion
        self.xcodeBuild = xcodeBuild
        self.sdk = sdk
    }
}
