/// What a known_hosts file says about the key a host presented.
enum HostKeyVerdict: Equatable {
    /// The key is recorded for this host at `line`.
    case trusted(line: Int)
    /// A different key of the same type is recorded for this host at `line`: possibly a man-in-the-middle.
    case changed(line: Int, recordedFingerprint: String)
    /// The key is marked `@revoked` at `line`.
    case revoked(line: Int)
    /// Nothing records this key for this host. `otherKeyTypes` lists keys of other types recorded for it;
    /// `portMismatchLines` are lines recording this very key for the bare address, i.e. for port 22 only.
    case unknown(otherKeyTypes: [String], portMismatchLines: [Int])
}
