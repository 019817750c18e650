import Foundation

/// What Pipe reads from a private key file without its passphrase: which algorithm the key is for.
///
/// Only the public part is looked at (OpenSSH's format stores it unencrypted); the secret part is left to libssh2.
enum PrivateKeyFile {
    /// `ssh-ed25519`, `ssh-rsa`, `ecdsa-sha2-nistp256`…; `nil` when the format is not recognised.
    static func keyType(atPath path: String) -> String? {
        guard let data = FileManager.default.contents(atPath: path) else { return nil }
        let text = String(decoding: data, as: UTF8.self)
        if text.contains("-----BEGIN RSA PRIVATE KEY-----") { return "ssh-rsa" }
        if text.contains("-----BEGIN EC PRIVATE KEY-----") { return "ecdsa" }
        if text.contains("-----BEGIN DSA PRIVATE KEY-----") { return "ssh-dss" }
        let begin = "-----BEGIN OPENSSH PRIVATE KEY-----"
        let end = "-----END OPENSSH PRIVATE KEY-----"
        guard let start = text.range(of: begin), let stop = text.range(of: end, range: start.upperBound..<text.endIndex)
        else { return nil }
        let body = text[start.upperBound..<stop.lowerBound].filter { !$0.isWhitespace }
        guard let decoded = Data(base64Encoded: String(body)) else { return nil }
        // openssh-key-v1\0, then strings: cipher, kdf, kdf options; uint32 key count; string public key.
        var reader = WireReader(bytes: [UInt8](decoded))
        guard reader.skip(literal: Array("openssh-key-v1\0".utf8)), reader.string() != nil, reader.string() != nil,
            reader.string() != nil, reader.uint32() != nil, let publicKey = reader.string()
        else { return nil }
        return SSHHostKey(blob: Data(publicKey))?.type
    }
}

/// Reads SSH wire-format fields (big-endian uint32, length-prefixed strings).
private struct WireReader {
    let bytes: [UInt8]
    var offset = 0

    mutating func skip(literal: [UInt8]) -> Bool {
        guard bytes.count - offset >= literal.count, Array(bytes[offset..<offset + literal.count]) == literal else {
            return false
        }
        offset += literal.count
        return true
    }

    mutating func uint32() -> UInt32? {
        guard bytes.count - offset >= 4 else { return nil }
        let value = bytes[offset..<offset + 4].reduce(UInt32(0)) { $0 << 8 | UInt32($1) }
        offset += 4
        return value
    }

    mutating func string() -> [UInt8]? {
        guard let length = uint32(), bytes.count - offset >= Int(length) else { return nil }
        let value = Array(bytes[offset..<offset + Int(length)])
        offset += Int(length)
        return value
    }
}
