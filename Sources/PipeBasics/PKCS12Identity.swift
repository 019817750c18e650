import CCrypto
import Foundation

/// The signing identity in a `.p12` file, opened with its password by libcrypto. Files exported by Keychain Access
/// often use RC2 or 3DES, which OpenSSL 3 keeps in its legacy provider: it is loaded (beside the default one)
/// before the first file is opened.
public struct PKCS12Identity: Sendable, Equatable {
    /// The certificate's subject, one line (`CN=…, OU=…, O=…, C=…`).
    public let subject: String
    /// The certificate's SHA-1 in uppercase hex, as `security find-identity` and codesign name it.
    public let sha1: String
    /// The certificate in DER, to compare with a provisioning profile's `DeveloperCertificates`.
    public let certificateDER: Data
    /// When the certificate stops being valid.
    public let notAfter: Date

    /// The most a `.p12` may hold: one identity and its chain are a few kilobytes.
    public static let maximumBytes = 1 << 20

    /// Opens `data` with `password`; a wrong password, a file that is no PKCS#12, one with no private key or no
    /// certificate is a `PipeBasicsError` saying which (never showing the password).
    public static func open(_ data: Data, password: String) throws -> PKCS12Identity {
        guard data.count <= maximumBytes else {
            throw PipeBasicsError.io("the .p12 is \(data.count) bytes, more than \(maximumBytes)")
        }
        LegacyProvider.load()
        let bytes = [UInt8](data)
        let parsed: OpaquePointer? = bytes.withUnsafeBufferPointer { buffer in
            var cursor = buffer.baseAddress
            return d2i_PKCS12(nil, &cursor, buffer.count)
        }
        guard let p12 = parsed else {
            throw PipeBasicsError.io("the file is not a PKCS#12 (.p12) file: \(Self.lastError())")
        }
        defer { PKCS12_free(p12) }
        guard PKCS12_verify_mac(p12, password, Int32(password.utf8.count)) == 1 else {
            throw PipeBasicsError.io("the .p12 does not open with its password (the MAC does not match)")
        }
        var key: OpaquePointer?
        var certificate: OpaquePointer?
        guard PKCS12_parse(p12, password, &key, &certificate, nil) == 1 else {
            throw PipeBasicsError.io("the .p12 could not be decrypted: \(Self.lastError())")
        }
        defer {
            EVP_PKEY_free(key)
            X509_free(certificate)
        }
        guard key != nil else { throw PipeBasicsError.io("the .p12 holds no private key") }
        guard let certificate else { throw PipeBasicsError.io("the .p12 holds no certificate") }
        return try PKCS12Identity(certificate: certificate)
    }

    private init(certificate: OpaquePointer) throws {
        let length = i2d_X509(certificate, nil)
        guard length > 0 else { throw PipeBasicsError.io("the .p12's certificate cannot be encoded") }
        var der = [UInt8](repeating: 0, count: Int(length))
        der.withUnsafeMutableBufferPointer { buffer in
            var cursor = buffer.baseAddress
            _ = i2d_X509(certificate, &cursor)
        }
        certificateDER = Data(der)
        sha1 = Self.fingerprint(der)
        subject = Self.oneLine(X509_get_subject_name(certificate))
        var end = tm()
        if let time = X509_get0_notAfter(certificate), ASN1_TIME_to_tm(time, &end) == 1 {
            notAfter = Date(timeIntervalSince1970: TimeInterval(timegm(&end)))
        } else {
            notAfter = .distantPast
        }
    }

    /// A certificate's SHA-1 over its DER, uppercase hex: how Apple's tools name an identity.
    public static func fingerprint(_ der: [UInt8]) -> String {
        var digest = [UInt8](repeating: 0, count: Int(EVP_MAX_MD_SIZE))
        var size: UInt32 = 0
        _ = EVP_Digest(der, der.count, &digest, &size, EVP_sha1(), nil)
        return Hex.encode(Array(digest.prefix(Int(size)))).uppercased()
    }

    /// `/C=US/O=…/CN=…`, as `openssl x509 -subject` printed it before OpenSSL 1.1 (UTF-8 kept as `\xNN`).
    private static func oneLine(_ name: OpaquePointer?) -> String {
        guard let name else { return "" }
        var buffer = [CChar](repeating: 0, count: 1024)
        guard X509_NAME_oneline(name, &buffer, Int32(buffer.count)) != nil else { return "" }
        return String(cString: buffer)
    }

    static func lastError() -> String {
        let code = ERR_get_error()
        guard code != 0 else { return "no detail from libcrypto" }
        var buffer = [CChar](repeating: 0, count: 256)
        ERR_error_string_n(code, &buffer, buffer.count)
        ERR_clear_error()
        return String(cString: buffer)
    }
}

/// OpenSSL 3's legacy provider (RC2, 3DES with SHA-1 PBE), loaded once beside the default provider.
enum LegacyProvider {
    private static let loaded: Bool = {
        _ = OSSL_PROVIDER_load(nil, "default")
        return OSSL_PROVIDER_load(nil, "legacy") != nil
    }()

    @discardableResult
    static func load() -> Bool { loaded }
}
