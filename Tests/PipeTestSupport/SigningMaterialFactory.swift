import Foundation

/// Signing material made with the `openssl` command at test time: a self-signed "Apple Distribution" certificate
/// and key, `.p12` files (AES, as OpenSSL 3 writes them, or RC2/3DES, as Keychain Access exports them) and
/// provisioning profiles (an XML property list signed as CMS, like a `.mobileprovision`).
public struct SigningMaterialFactory {
    public let folder: URL
    public let certificatePEM: URL
    public let keyPEM: URL

    public init(folder: URL, commonName: String = "Apple Distribution: Pipe Tests (TEAM123456)") throws {
        self.folder = folder
        certificatePEM = folder.appendingPathComponent("certificate.pem")
        keyPEM = folder.appendingPathComponent("key.pem")
        try Self.openssl([
            "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "365", "-subj", "/CN=\(commonName)/OU=TEAM123456",
            "-keyout", keyPEM.path, "-out", certificatePEM.path,
        ])
    }

    /// A `.p12` of the certificate and key under `password`; `legacy` uses RC2/3DES and a SHA-1 MAC.
    public func p12(password: String, legacy: Bool = false, name: String = "identity.p12") throws -> URL {
        let url = folder.appendingPathComponent(name)
        let passwordFile = folder.appendingPathComponent(name + ".password")
        try Data(password.utf8).write(to: passwordFile)
        try Self.openssl(
            [
                "pkcs12", "-export", "-inkey", keyPEM.path, "-in", certificatePEM.path, "-out", url.path,
                "-passout", "file:\(passwordFile.path)",
            ] + (legacy ? ["-legacy"] : []))
        try FileManager.default.removeItem(at: passwordFile)
        return url
    }

    /// A signed profile naming this certificate (or none, with `namesCertificate: false`), expiring at `expiry`.
    public func profile(
        name: String = "Reader App Store", uuid: String = "6E1B3D2A-8F4C-4B7E-9A61-2C5D8E0F1A34",
        expiry: Date, namesCertificate: Bool = true, file: String = "profile.mobileprovision"
    ) throws -> URL {
        let der = try Self.openssl(["x509", "-in", certificatePEM.path, "-outform", "DER"]).stdoutData
        let certificates = namesCertificate ? "<data>\(der.base64EncodedString())</data>" : ""
        let formatter = ISO8601DateFormatter()
        let plist = """
            <?xml version="1.0" encoding="UTF-8"?>
            <!DOCTYPE plist PUBLIC "-//Apple//DTD PLIST 1.0//EN" "http://www.apple.com/DTDs/PropertyList-1.0.dtd">
            <plist version="1.0">
            <dict>
            \t<key>AppIDName</key><string>Reader</string>
            \t<key>CreationDate</key><date>\(formatter.string(from: expiry.addingTimeInterval(-86_400 * 300)))</date>
            \t<key>DeveloperCertificates</key><array>\(certificates)</array>
            \t<key>ExpirationDate</key><date>\(formatter.string(from: expiry))</date>
            \t<key>Name</key><string>\(name)</string>
            \t<key>TeamIdentifier</key><array><string>TEAM123456</string></array>
            \t<key>TeamName</key><string>Pipe Tests</string>
            \t<key>UUID</key><string>\(uuid)</string>
            \t<key>Version</key><integer>1</integer>
            </dict>
            </plist>
            """
        let plistURL = folder.appendingPathComponent(file + ".plist")
        try Data(plist.utf8).write(to: plistURL)
        let url = folder.appendingPathComponent(file)
        try Self.openssl([
            "cms", "-sign", "-nodetach", "-binary", "-outform", "DER", "-in", plistURL.path, "-signer",
            certificatePEM.path, "-inkey", keyPEM.path, "-out", url.path,
        ])
        return url
    }

    /// The certificate's SHA-1 as `openssl x509 -fingerprint` prints it, colons removed.
    public func certificateSHA1() throws -> String {
        let output = try Self.openssl(["x509", "-in", certificatePEM.path, "-noout", "-fingerprint", "-sha1"]).stdout
        return String(output.split(separator: "=").last ?? "").replacingOccurrences(of: ":", with: "")
            .trimmingCharacters(in: .whitespacesAndNewlines)
    }

    @discardableResult
    static func openssl(_ arguments: [String]) throws -> CommandResult {
        let result = try CommandRunner.run(URL(fileURLWithPath: "/usr/bin/openssl"), arguments)
        guard result.exitCode == 0 else {
            throw NSError(
                domain: "SigningMaterialFactory", code: Int(result.exitCode),
                userInfo: [NSLocalizedDescriptionKey: "openssl \(arguments.first ?? "") failed: \(result.stderr)"])
        }
        return result
    }
}
