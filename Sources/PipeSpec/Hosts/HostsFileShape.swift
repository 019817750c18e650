import PipeCore

/// The keys of a hosts file and their types: `HostsFileDecoder` checks keys against these, and `pipe schema
/// hosts` writes them as a JSON Schema.
public enum HostsFileShape {
    static let buildCache = MappingShape(
        "When the host evicts build caches",
        [
            KeyShape("max-size", .byteSize, "evict the oldest caches past this size"),
            KeyShape("max-age", .duration, "evict caches unused for this long"),
        ])
    static let host = MappingShape(
        "One Mac host",
        [
            KeyShape("name", .nonEmptyText, required: true, "unique; letters, digits, '.', '_' and '-'"),
            KeyShape("address", .nonEmptyText, required: true, "the host's DNS name or IP address"),
            KeyShape("port", .integer(1...65_535), "the SSH port (default 22)"),
            KeyShape("user", .nonEmptyText, required: true, "the login name on the Mac"),
            KeyShape("identity-file", .nonEmptyText, "an ed25519 or ECDSA private key"),
            KeyShape("identity-passphrase-env", .nonEmptyText, "the environment variable holding the passphrase"),
            KeyShape("identity-passphrase-file", .nonEmptyText, "the file holding the passphrase"),
            KeyShape("use-agent", .boolean, "log in with the SSH agent"),
            KeyShape("known-hosts", .nonEmptyText, required: true, "an OpenSSH known_hosts file with the host's key"),
            KeyShape("labels", .textMap, "labels pipelines select hosts by"),
            KeyShape("capacity", .integer(1...Int.max), "runs the host takes at once (default 1)"),
            KeyShape("work-dir", .nonEmptyText, "the work folder on the host (default pipe-work)"),
            KeyShape("xcodes", .textMap, "Xcode versions to their DEVELOPER_DIR (absolute paths)"),
            KeyShape("connect-timeout", .duration, "how long to wait for a connection (default 15s)"),
            KeyShape("transfer-sessions", .integer(1...2), "1, or 2 to split a big download across two sessions"),
            KeyShape("compression", .choice(UploadCompression.allCases.map(\.rawValue)), "upload compression"),
            KeyShape("trust", .choice(TrustLevel.allCases.map(\.rawValue)), "what the host may receive"),
            KeyShape("build-caches", .integer(0...64), "build caches kept per build identity, 0 (none) to 64"),
            KeyShape("build-cache", .mapping(buildCache), "when build caches are evicted"),
        ])
    static let top = MappingShape(
        "A Pipe hosts file (hosts.yml)",
        [KeyShape("hosts", .list(.mapping(host)), required: true, "the Mac hosts")])

    public static let file = FileShape(kind: "hosts", title: "Pipe hosts file", root: top)
}
