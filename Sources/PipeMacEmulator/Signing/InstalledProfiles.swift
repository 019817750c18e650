import Foundation
import PipeBasics

/// A provisioning profile installed where the host's Xcode reads them (a CMS-signed property list).
struct InstalledProfile: Equatable {
    let name: String
    let uuid: String
    let team: String
    let teamName: String?
    let expiration: Date?
    /// `DeveloperCertificates` as SHA-1 (uppercase hex), to check the signing identity against.
    let certificateSHA1s: [String]
    let file: URL

    /// Whether an export option or build setting naming `specifier` (a UUID or a profile name) means this one.
    func isNamed(_ specifier: String) -> Bool {
        specifier.caseInsensitiveCompare(uuid) == .orderedSame || specifier == name
    }
}

/// The profiles the emulated Xcode can use (apple-formats.md Part 2 §5c): Xcode 16 and later read
/// `~/Library/Developer/Xcode/UserData/Provisioning Profiles` and still the old
/// `~/Library/MobileDevice/Provisioning Profiles`; earlier Xcodes read only the old folder.
enum InstalledProfiles {
    /// A folder holds a few profiles; more than this many files are not read (hostile or broken state).
    static let maximumFiles = 500

    static func folders(xcodeVersion: String) -> [String] {
        let old = "~/Library/MobileDevice/Provisioning Profiles"
        guard (DestinationSpecifier.versionKey(xcodeVersion).first ?? 0) >= 16 else { return [old] }
        return ["~/Library/Developer/Xcode/UserData/Provisioning Profiles", old]
    }

    /// Every readable `.mobileprovision` of those folders; unreadable files are skipped, as Xcode skips them.
    static func load(xcodeVersion: String, context: EmulatorContext) -> [InstalledProfile] {
        var profiles: [InstalledProfile] = []
        for folder in folders(xcodeVersion: xcodeVersion) {
            let url = URL(fileURLWithPath: context.absolutePath(folder), isDirectory: true)
            let names = ((try? FileManager.default.contentsOfDirectory(atPath: url.path)) ?? []).sorted()
            for name in names.filter({ $0.hasSuffix(".mobileprovision") }).prefix(maximumFiles) {
                if let profile = read(url.appendingPathComponent(name)) { profiles.append(profile) }
            }
        }
        return profiles
    }

    static func read(_ file: URL) -> InstalledProfile? {
        guard let attributes = try? FileManager.default.attributesOfItem(atPath: file.path),
            attributes[.type] as? FileAttributeType == .typeRegular,
            ((attributes[.size] as? NSNumber)?.intValue ?? .max) <= CMSSignedContent.maximumBytes,
            let signed = try? Data(contentsOf: file), let content = try? CMSSignedContent.content(of: signed),
            let plist = try? PropertyListSerialization.propertyList(from: content, format: nil) as? [String: Any],
            let name = plist["Name"] as? String, let uuid = plist["UUID"] as? String,
            let team = (plist["TeamIdentifier"] as? [String])?.first
        else { return nil }
        let certificates = (plist["DeveloperCertificates"] as? [Data]) ?? []
        return InstalledProfile(
            name: name, uuid: uuid, team: team, teamName: plist["TeamName"] as? String,
            expiration: plist["ExpirationDate"] as? Date,
            certificateSHA1s: certificates.map { PKCS12Identity.fingerprint([UInt8]($0)) }, file: file)
    }
}
