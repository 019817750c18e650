import CCrypto
import Foundation

/// Password hashes with scrypt (OpenSSL's `EVP_PBE_scrypt`), written as one line of text:
/// `scrypt$<log2 N>$<r>$<p>$<salt, base64>$<hash, base64>`. The cost is stored with each hash, so raising it later
/// leaves older hashes readable.
public enum PasswordHash {
    /// The cost of new hashes: N = 2^15, r = 8, p = 1 (32 MiB and tens of milliseconds per check), the
    /// interactive-login parameters scrypt's author gives.
    public static let defaultLogN = 15
    static let hashBytes = 32
    static let saltBytes = 16
    /// Room OpenSSL may use: 128 · N · r · p plus slack, and a bound on what a stored line can ask for.
    static let maxMemoryBytes: UInt64 = 64 * 1024 * 1024

    /// A new hash of `password` with a fresh random salt.
    public static func make(_ password: String, logN: Int = defaultLogN) throws(PipeBasicsError) -> String {
        var generator = SystemRandomNumberGenerator()
        let salt = (0..<saltBytes).map { _ in UInt8.random(in: 0...255, using: &generator) }
        let hash = try derive(Array(password.utf8), salt: salt, logN: logN, r: 8, p: 1)
        return "scrypt$\(logN)$8$1$\(Data(salt).base64EncodedString())$\(Data(hash).base64EncodedString())"
    }

    /// Whether `password` matches `stored`; a line that is not a hash of this form never matches.
    public static func verify(_ password: String, against stored: String) -> Bool {
        let parts = stored.split(separator: "$", omittingEmptySubsequences: false).map(String.init)
        guard parts.count == 6, parts[0] == "scrypt", let logN = Int(parts[1]), (10...20).contains(logN),
            let r = Int(parts[2]), (1...32).contains(r), let p = Int(parts[3]), (1...16).contains(p),
            let salt = Data(base64Encoded: parts[4]), let expected = Data(base64Encoded: parts[5]),
            expected.count == hashBytes
        else { return false }
        guard let hash = try? derive(Array(password.utf8), salt: Array(salt), logN: logN, r: r, p: p) else {
            return false
        }
        return HMACDigest.constantTimeEqual(hash, Array(expected))
    }

    static func derive(_ password: [UInt8], salt: [UInt8], logN: Int, r: Int, p: Int) throws(PipeBasicsError)
        -> [UInt8]
    {
        var output = [UInt8](repeating: 0, count: hashBytes)
        // An empty array may have no address; OpenSSL reads none of it when the length is 0.
        let passwordBuffer = password.isEmpty ? [UInt8(0)] : password
        let saltBuffer = salt.isEmpty ? [UInt8(0)] : salt
        let result = passwordBuffer.withUnsafeBytes { passwordBytes in
            saltBuffer.withUnsafeBytes { saltBytes in
                EVP_PBE_scrypt(
                    passwordBytes.baseAddress!.assumingMemoryBound(to: CChar.self), password.count,
                    saltBytes.baseAddress!.assumingMemoryBound(to: UInt8.self), salt.count,
                    UInt64(1) << UInt64(logN), UInt64(r), UInt64(p), maxMemoryBytes, &output, hashBytes)
            }
        }
        guard result == 1 else {
            throw PipeBasicsError.io("OpenSSL's scrypt refused the parameters N=2^\(logN), r=\(r), p=\(p)")
        }
        return output
    }
}
