import Foundation
import PipeBasics

/// The content digest in a `WorkspaceManifest`: SHA-256 based, computed for every file of a workspace on each sync.
///
/// Files up to `wholeFileLimit` bytes (nearly all of a source tree) are read whole and digested with one call to
/// libcrypto's HMAC-SHA-256 under a fixed key; bigger ones stream through SHA-256. The size is part of every entry,
/// so one content always gets the same digest. Why not plain SHA-256 for all: PipeBasics' `SHA256Digest` hands its
/// result over only as hex built with `String(format:)`, ~37 µs a call — 0.37 s for 10,000 files, more than
/// digesting their 60 MB — while `HMACDigest` returns raw bytes.
enum WorkspaceDigest {
    static let wholeFileLimit = 8 << 20
    private static let key = Array("pipe-workspace-manifest".utf8)

    /// Digest of content held in memory (at most `wholeFileLimit` bytes, or a symlink's target).
    static func of(_ bytes: [UInt8]) -> String {
        hex(HMACDigest.authenticationCode(.sha256, key: key, message: bytes))
    }

    private static let digits = Array("0123456789abcdef".utf8)

    static func hex(_ bytes: [UInt8]) -> String {
        var text = [UInt8](repeating: 0, count: bytes.count * 2)
        for (index, byte) in bytes.enumerated() {
            text[2 * index] = digits[Int(byte >> 4)]
            text[2 * index + 1] = digits[Int(byte & 0x0f)]
        }
        return String(decoding: text, as: UTF8.self)
    }
}
