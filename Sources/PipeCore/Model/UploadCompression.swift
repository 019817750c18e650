/// Whether a workspace upload is compressed on its way to a host (`compression:` in the hosts file).
///
/// Compressing pays only where the link is slower than the coordinator compresses (one core); on a fast link it only
/// costs (docs/performance.md).
public enum UploadCompression: String, Sendable, Equatable, CaseIterable {
    /// Chosen per upload from what Pipe knows of the link (the SSH window's limit at the connection's round-trip
    /// time, and the rate of the last sizeable uncompressed upload to that host in this process) and of the host:
    /// zstd where the host has it and the link is slower than zstd compresses, else gzip where the link is slower
    /// than gzip compresses, else none.
    case auto
    case none
    /// gzip (zlib level 1), unpacked on the host with `gzip -dc`.
    case gzip
    /// zstd (level 1), unpacked on the host with `zstd -dc`, where the host has `zstd` (on its PATH, or Homebrew's
    /// `/opt/homebrew/bin` or `/usr/local/bin`; a stock macOS has none); gzip on a host without it.
    case zstd
}
