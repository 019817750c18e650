/// The algorithms a session agreed on with the host (libssh2 drops names it does not know without a word, so they
/// are read back after the handshake rather than assumed).
public struct SSHNegotiatedMethods: Sendable, Equatable {
    /// Key exchange, e.g. `curve25519-sha256`.
    public var keyExchange: String
    /// Host key algorithm, e.g. `ssh-ed25519`.
    public var hostKey: String
    /// Cipher from Pipe to the host, e.g. `aes128-ctr`.
    public var cipher: String
    /// MAC from Pipe to the host, e.g. `hmac-sha2-256`.
    public var mac: String
}
