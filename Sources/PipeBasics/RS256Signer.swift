import CCrypto

/// RSASSA-PKCS1-v1_5 with SHA-256 (JWT's `RS256`) over libcrypto, with a private key read from PEM (PKCS#1
/// `RSA PRIVATE KEY`, as GitHub hands out app keys, or PKCS#8 `PRIVATE KEY`). The key never leaves this object.
public final class RS256Signer: @unchecked Sendable {
    /// Immutable after init; each signature uses a context of its own, so threads may share a signer.
    private let key: OpaquePointer

    public enum Failure: Error, Equatable, CustomStringConvertible {
        case unreadableKey(String)
        case notRSA
        case tooShort(bits: Int)
        case signingFailed(String)

        public var description: String {
            switch self {
            case .unreadableKey(let why): return "the PEM private key cannot be read (\(why))"
            case .notRSA: return "the private key is not an RSA key (RS256 needs one)"
            case .tooShort(let bits): return "the RSA key has \(bits) bits; RS256 needs at least 2048"
            case .signingFailed(let why): return "libcrypto could not sign (\(why))"
            }
        }
    }

    /// Refuses an encrypted key (no passphrase is ever asked for on a terminal), a key that is not RSA, and an RSA
    /// key under 2048 bits.
    public init(pem: String) throws {
        ERR_clear_error()
        let bytes = Array(pem.utf8)
        let parsed: OpaquePointer? = bytes.withUnsafeBytes { buffer in
            guard let bio = BIO_new_mem_buf(buffer.baseAddress, Int32(buffer.count)) else { return nil }
            defer { BIO_free(bio) }
            return PEM_read_bio_PrivateKey(bio, nil, { _, _, _, _ in 0 }, nil)
        }
        guard let parsed else { throw Failure.unreadableKey(RS256Signer.lastError()) }
        guard EVP_PKEY_get_base_id(parsed) == EVP_PKEY_RSA else {
            EVP_PKEY_free(parsed)
            throw Failure.notRSA
        }
        let bits = Int(EVP_PKEY_get_bits(parsed))
        guard bits >= 2048 else {
            EVP_PKEY_free(parsed)
            throw Failure.tooShort(bits: bits)
        }
        key = parsed
    }

    deinit { EVP_PKEY_free(key) }

    /// The signature of `message` (as long as the key's modulus).
    public func sign(_ message: [UInt8]) throws -> [UInt8] {
        ERR_clear_error()
        guard let context = EVP_MD_CTX_new() else { throw Failure.signingFailed("no memory for a digest context") }
        defer { EVP_MD_CTX_free(context) }
        guard EVP_DigestSignInit(context, nil, EVP_sha256(), nil, key) == 1 else {
            throw Failure.signingFailed(RS256Signer.lastError())
        }
        var length = 0
        guard message.withUnsafeBufferPointer({ EVP_DigestSign(context, nil, &length, $0.baseAddress, $0.count) }) == 1
        else { throw Failure.signingFailed(RS256Signer.lastError()) }
        var signature = [UInt8](repeating: 0, count: length)
        let signed = message.withUnsafeBufferPointer { input in
            EVP_DigestSign(context, &signature, &length, input.baseAddress, input.count)
        }
        guard signed == 1 else { throw Failure.signingFailed(RS256Signer.lastError()) }
        return Array(signature.prefix(length))
    }

    private static func lastError() -> String {
        let code = ERR_get_error()
        guard code != 0 else { return "no detail from libcrypto" }
        var text = [CChar](repeating: 0, count: 256)
        ERR_error_string_n(code, &text, text.count)
        return String(cString: text)
    }
}
