import CCrypto
import Foundation

/// HMAC with OpenSSL's libcrypto: SHA-1 for OpenSSH's hashed known_hosts names, SHA-256 for signed requests.
public enum HMACDigest {
    public enum Algorithm {
        case sha1
        case sha256
    }

    /// The authentication code of `message` under `key`.
    public static func authenticationCode(_ algorithm: Algorithm, key: [UInt8], message: [UInt8]) -> [UInt8] {
        let digest = algorithm == .sha1 ? EVP_sha1() : EVP_sha256()
        var output = [UInt8](repeating: 0, count: Int(EVP_MAX_MD_SIZE))
        var length: UInt32 = 0
        let result = key.withUnsafeBufferPointer { keyBytes in
            message.withUnsafeBufferPointer { messageBytes in
                HMAC(
                    digest, keyBytes.baseAddress, Int32(keyBytes.count), messageBytes.baseAddress, messageBytes.count,
                    &output, &length)
            }
        }
        precondition(result != nil, "OpenSSL's HMAC failed, which only happens when it cannot allocate memory")
        return Array(output.prefix(Int(length)))
    }

    /// Compares two codes in time that does not depend on where they differ.
    public static func constantTimeEqual(_ a: [UInt8], _ b: [UInt8]) -> Bool {
        guard a.count == b.count else { return false }
        return a.withUnsafeBytes { left in
            b.withUnsafeBytes { right in CRYPTO_memcmp(left.baseAddress, right.baseAddress, a.count) == 0 }
        }
    }
}
