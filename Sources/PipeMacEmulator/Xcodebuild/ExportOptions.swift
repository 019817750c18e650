import Foundation

/// Why `-exportArchive` stopped, as Xcode reports it: the short `error: exportArchive: <description>` line and
/// the NSError dump after it (apple-formats.md Part 2 §3c, §3d).
struct ExportFailure: Error, Equatable {
    var domain: String
    var code: Int
    var description: String
    /// `NSLocalizedRecoverySuggestion`, when Xcode gives one.
    var recovery: String?
    /// Distribution errors carry `IDEDistributionIssueSeverity=3`; option errors do not.
    var severity = true
    /// The short line's text when it differs from the description (Xcode drops the final full stop there).
    var shortText: String?

    var lines: [String] {
        var userInfo: [String] = []
        if severity { userInfo.append("IDEDistributionIssueSeverity=3") }
        userInfo.append("NSLocalizedDescription=\(description)")
        if let recovery { userInfo.append("NSLocalizedRecoverySuggestion=\(recovery)") }
        return [
            "error: exportArchive: \(shortText ?? description)", "",
            "Error Domain=\(domain) Code=\(code) \"\(description)\" UserInfo={\(userInfo.joined(separator: ", "))}",
        ]
    }
}

/// The `-exportOptionsPlist` file: an XML (or binary) property list whose top level is a dictionary.
struct ExportOptions {
    /// Export options are a few keys; a larger file is refused before it is parsed.
    static let maximumBytes = 1 << 20

    let values: [String: Any]

    var method: String? { values["method"] as? String }
    /// `automatic` unless the options say `manual`.
    var signingStyle: String { values["signingStyle"] as? String ?? "automatic" }
    var signingCertificate: String? { values["signingCertificate"] as? String }
    var teamID: String? { values["teamID"] as? String }
    /// Bundle identifier → profile name or UUID.
    var provisioningProfiles: [String: String] { values["provisioningProfiles"] as? [String: String] ?? [:] }
    var destination: String { values["destination"] as? String ?? "export" }

    static func read(_ url: URL) throws -> ExportOptions {
        let attributes = try? FileManager.default.attributesOfItem(atPath: url.path)
        guard let attributes, attributes[.type] as? FileAttributeType == .typeRegular else {
            throw ExportFailure(
                domain: "NSCocoaErrorDomain", code: 260,
                description: "The file “\(url.lastPathComponent)” couldn’t be opened because there is no such file.",
                severity: false)
        }
        let size = (attributes[.size] as? NSNumber)?.intValue ?? 0
        guard size <= maximumBytes, let data = try? Data(contentsOf: url),
            let values = try? PropertyListSerialization.propertyList(from: data, format: nil) as? [String: Any]
        else {
            throw ExportFailure(
                domain: "NSCocoaErrorDomain", code: 3840,
                description: "The data couldn’t be read because it isn’t in the correct format.", severity: false)
        }
        return ExportOptions(values: values)
    }
}

/// An export method in the naming of the host's Xcode (apple-formats.md Part 2 §4c): Xcode 15.3 renamed
/// `app-store`, `ad-hoc` and `development`, still taking the old names with a deprecation line.
struct ExportMethod: Equatable {
    /// The current name (`app-store-connect`, …, or the old name on an Xcode before 15.3).
    let name: String
    /// The old name given to an Xcode that renamed it, for the deprecation line.
    let deprecatedName: String?

    static let renamed = ["app-store": "app-store-connect", "ad-hoc": "release-testing", "development": "debugging"]

    /// The methods of an iOS app archive; `validation`, `package`, `developer-id` and `mac-application` are
    /// refused (assumed: the list "varies based on the type of archive", and those are not iOS exports).
    static func names(xcodeVersion: String) -> [String] {
        renamesMethods(xcodeVersion)
            ? ["app-store-connect", "release-testing", "enterprise", "debugging"]
            : ["app-store", "ad-hoc", "enterprise", "development"]
    }

    static func renamesMethods(_ xcodeVersion: String) -> Bool {
        !DestinationSpecifier.versionKey(xcodeVersion).lexicographicallyPrecedes([15, 3])
    }

    /// `given` (the options' `method`, or Xcode's default without one) checked against this Xcode's names.
    static func resolve(_ given: String?, xcodeVersion: String, archiveHoldsApp: Bool) throws -> ExportMethod {
        let modern = renamesMethods(xcodeVersion)
        let value = given ?? (modern ? "debugging" : "development")
        // `expected one of {}` is Xcode's answer for an archive that is not a single app (openradar 35594336).
        let accepted = archiveHoldsApp ? names(xcodeVersion: xcodeVersion) : []
        if modern, let current = renamed[value], accepted.contains(current) {
            return ExportMethod(name: current, deprecatedName: value)
        }
        guard accepted.contains(value) else {
            let text =
                "exportOptionsPlist error for key 'method': expected one of {\(accepted.joined(separator: ", "))}, "
                + "but found \(value)"
            throw ExportFailure(domain: "IDEFoundationErrorDomain", code: 1, description: text, severity: false)
        }
        return ExportMethod(name: value, deprecatedName: nil)
    }

    var isDevelopment: Bool { name == "debugging" || name == "development" }

    /// The certificate selector Xcode picks for the method when the options name none.
    var defaultCertificate: String { isDevelopment ? "iOS Development" : "iOS Distribution" }

    /// The profile kind in Xcode's "couldn't find any <kind> provisioning profiles" text.
    var profileKind: String {
        switch name {
        case "app-store", "app-store-connect": return "iOS App Store"
        case "ad-hoc", "release-testing": return "iOS Ad Hoc"
        case "enterprise": return "iOS In House"
        default: return "iOS App Development"
        }
    }
}
