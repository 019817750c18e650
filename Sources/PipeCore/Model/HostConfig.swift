import Foundation

/// One Mac host from the hosts file (`.pipe/hosts.yml`).
///
/// The whole schema is defined here, so the host-pool work extends the behaviour, not the file format.
public struct HostConfig: Sendable, Equatable {
    public var name: String
    public var address: String
    public var port: Int
    public var user: String
    /// Private key file (ed25519 or ECDSA); `nil` with `useAgent` means ssh-agent.
    public var identityFile: String?
    /// Environment variable that holds the key's passphrase (never the passphrase itself).
    public var identityPassphraseEnvironment: String?
    /// File that holds the key's passphrase.
    public var identityPassphraseFile: String?
    /// Authenticate with the keys of the ssh-agent at `SSH_AUTH_SOCK`.
    public var useAgent: Bool
    /// OpenSSH-format known_hosts file the host key is checked against before authenticating.
    public var knownHostsFile: String
    public var labels: [String: String]
    /// Simultaneous runs this host takes.
    public var capacity: Int
    /// Folder on the host under which Pipe keeps run folders; relative paths are relative to the login's home.
    public var workDirectory: String
    /// For hosts with several Xcodes: a label value (e.g. `"16.2"`) mapped to its `DEVELOPER_DIR`.
    public var xcodes: [String: String]
    /// Seconds to wait for the TCP connection and the SSH handshake.
    public var connectTimeoutSeconds: Double
    /// Sessions a big download (a result bundle) may be split across, 1 or 2: libssh2 1.10 decrypts one channel on
    /// one core, so a second session in a second thread pays where the coordinator has cores to spare and the link
    /// is faster than that; on a 2-core machine that also runs the host it costs more than it saves
    /// (docs/performance.md).
    public var transferSessions: Int
    /// Whether workspace uploads are compressed: `auto` (the default) decides from the link.
    public var uploadCompression: UploadCompression
    /// Which code the host runs (`trust:`; `TrustLevel.hostRuns`). Signing material (keys, certificates, profiles)
    /// belongs only on `release` hosts: a setting that puts it on a host must check this first.
    public var trust: TrustLevel
    /// How many build caches the host keeps per identity, and when they go (`build-caches:`, `build-cache:`).
    public var buildCache: BuildCachePolicy

    public init(
        name: String, address: String, port: Int = 22, user: String, identityFile: String? = nil,
        identityPassphraseEnvironment: String? = nil, identityPassphraseFile: String? = nil, useAgent: Bool = false,
        knownHostsFile: String, labels: [String: String] = [:], capacity: Int = 1, workDirectory: String = "pipe-work",
        xcodes: [String: String] = [:], connectTimeoutSeconds: Double = 15, transferSessions: Int = 1,
        uploadCompression: UploadCompression = .auto, trust: TrustLevel = .trusted,
        buildCache: BuildCachePolicy = BuildCachePolicy()
    ) {
        self.name = name
        self.address = address
        self.port = port
        self.user = user
        self.identityFile = identityFile
        self.identityPassphraseEnvironment = identityPassphraseEnvironment
        self.identityPassphraseFile = identityPassphraseFile
        self.useAgent = useAgent
        self.knownHostsFile = knownHostsFile
        self.labels = labels
        self.capacity = capacity
        self.workDirectory = workDirectory
        self.xcodes = xcodes
        self.connectTimeoutSeconds = connectTimeoutSeconds
        self.transferSessions = transferSessions
        self.uploadCompression = uploadCompression
        self.trust = trust
        self.buildCache = buildCache
    }

    /// `user@address:port`, for messages.
    public var endpoint: String { "\(user)@\(address):\(port)" }
}
