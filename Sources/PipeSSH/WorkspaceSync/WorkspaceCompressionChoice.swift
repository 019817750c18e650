import PipeCore

/// How a workspace sync's archive travels: as it is, or compressed for `gzip -dc` or `zstd -dc` on the host.
public enum ArchiveCompression: String, Sendable, Equatable {
    case none
    case gzip
    case zstd
}

/// Whether and how a workspace sync compresses its archive (`compression:` in the hosts file, `UploadCompression`).
///
/// Compressing and sending overlap (the archive is made on its own thread), so a compressed upload takes about as
/// long as the slower of the two: compressing on one core, or sending the smaller archive. It pays where the link
/// moves fewer bytes a second than the compressor takes in, and only costs where it moves more.
enum WorkspaceCompressionChoice {
    /// zlib level 1 on a source tree, one core of the 2-core reference machine: 52 MB/s on the bench's workspace A
    /// (`gzip -1`, 12-02), 73 MB/s on Pipe's own sources; a little under the lower figure, so that a link about as
    /// fast is left uncompressed.
    static let deflateBytesPerSecond = 50e6
    /// zstd level 1, same machine and data (`zstd -1 -T1`, 12-02, to 32 % where gzip makes 35 %): 138 MB/s on A's
    /// archive in a bench run and 130–158 right after it, when zlib made 48; 226 in a quieter moment (zlib: 63);
    /// about 160 on Pipe's own sources. A little under the lower figures, as for zlib.
    static let zstdBytesPerSecond = 130e6
    /// One channel carries at most a window of bytes per round trip: OpenSSH's sshd opens a session channel with a
    /// 2 MiB window, so a link 30 ms away moves at most ≈ 70 MB/s through it however fast it is.
    static let channelWindowBytes = 2.0 * 1024 * 1024
    /// Below this much to send, compressing saves less than the host's `gzip` process costs to start.
    static let minimumBytes: Int64 = 64 * 1024

    /// The link's rate as far as Pipe knows it: the window's limit at `roundTripSeconds`, and the rate of the last
    /// sizeable uncompressed upload to the host; `nil` when neither is known.
    static func linkEstimate(roundTripSeconds: Double?, observedBytesPerSecond: Double?) -> Double? {
        let windowLimit = roundTripSeconds.flatMap { $0 > 0 ? channelWindowBytes / $0 : nil }
        switch (windowLimit, observedBytesPerSecond) {
        case (let window?, let observed?): return min(window, observed)
        case (let window?, nil): return window
        case (nil, let observed?): return observed
        case (nil, nil): return nil
        }
    }

    /// How an archive of `bytes` (before compression) goes to a host that has `zstd` or not.
    static func choose(
        _ setting: UploadCompression, bytes: Int64, hostHasZstd: Bool, roundTripSeconds: Double?,
        observedBytesPerSecond: Double?
    ) -> ArchiveCompression {
        switch setting {
        case .none: return .none
        case .gzip: return bytes > 0 ? .gzip : .none
        case .zstd: return bytes > 0 ? (hostHasZstd ? .zstd : .gzip) : .none
        case .auto:
            guard bytes >= minimumBytes,
                let link = linkEstimate(
                    roundTripSeconds: roundTripSeconds, observedBytesPerSecond: observedBytesPerSecond)
            else { return .none }
            if hostHasZstd && link < zstdBytesPerSecond { return .zstd }
            return link < deflateBytesPerSecond ? .gzip : .none
        }
    }
}
