/// The ciphers and MACs a session offers, in order of preference.
///
/// `standard` was chosen by measurement (`bench/run`, docs/performance.md): with libssh2 1.10 and OpenSSH 9 every
/// common pair is an AES-CTR cipher with an HMAC-SHA2 or HMAC-SHA1 MAC; `aes128-ctr` with `hmac-sha2-256` was the
/// fastest or within noise of it (~410–460 MB/s on one channel), and SHA-1 is left out. GCM and ChaCha20-Poly1305
/// need libssh2 1.11.
public struct SSHAlgorithms: Sendable, Equatable {
    public var ciphers: [String]
    public var macs: [String]

    public init(ciphers: [String], macs: [String]) {
        self.ciphers = ciphers
        self.macs = macs
    }

    public static let standard = SSHAlgorithms(
        ciphers: ["aes128-ctr", "aes256-ctr", "aes192-ctr"], macs: ["hmac-sha2-256", "hmac-sha2-512"])
}
