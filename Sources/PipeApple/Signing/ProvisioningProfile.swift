import Foundation
import PipeBasics

/// What a `.mobileprovision` says (a CMS-signed property list): the facts a release manager asks about, and the
/// certificates it allows, to check against the `.p12` before anything runs.
public struct ProvisioningProfile: Sendable, Equatable, Codable {
    public let name: String
    /// `UUID`: the profile's file name in the folder Xcode reads (`<UUID>.mobileprovision`).
    public let uuid: String
    /// `TeamIdentifier`'s first entry.
    public let team: String
    public let expirationDate: Date
    /// `DeveloperCertificates`, DER, as SHA-1 hex (uppercase).
    public let certificateSHA1s: [String]

    /// Reads a profile's signed bytes; `source` names the file (or secret) in messages.
    public static func read(signed bytes: Data, source: String) throws -> ProvisioningProfile {
        let content: Data
        do {
            content = try CMSSignedContent.content(of: bytes)
        } catch {
            throw PropertyListError("\(source): \(error)")
        }
        return try read(plist: [UInt8](content), source: source)
    }

    /// Reads a profile's property list (the signed message's content).
    public static func read(plist bytes: [UInt8], source: String) throws -> ProvisioningProfile {
        let plist: PropertyListValue
        do {
            plist = try PropertyListReader.read(bytes, limits: PropertyListLimits(maximumBytes: 4 << 20))
        } catch let error as PropertyListError {
            throw PropertyListError("\(source): \(error.message)")
        }
        func text(_ value: PropertyListValue?, _ key: String) throws -> String {
            guard let string = value?.string, !string.isEmpty, string.count <= 256 else {
                throw PropertyListError("\(source): the profile's \(key) is missing or not a short string")
            }
            return string
        }
        let uuid = try text(plist["UUID"], "UUID")
        let uuidBytes = Set("0123456789abcdefABCDEF-".utf8)
        guard uuid.utf8.allSatisfy(uuidBytes.contains) else {
            throw PropertyListError("\(source): the profile's UUID '\(uuid)' is not a UUID")
        }
        guard let expiration = plist["ExpirationDate"]?.date else {
            throw PropertyListError("\(source): the profile has no ExpirationDate")
        }
        let certificates = (plist["DeveloperCertificates"]?.array ?? []).compactMap(\.data)
        return ProvisioningProfile(
            name: try text(plist["Name"], "Name"), uuid: uuid,
            team: try text(plist["TeamIdentifier"]?.array?.first, "TeamIdentifier"), expirationDate: expiration,
            certificateSHA1s: certificates.map(PKCS12Identity.fingerprint))
    }

    /// The file name Xcode looks for.
    public var fileName: String { "\(uuid).mobileprovision" }
}
