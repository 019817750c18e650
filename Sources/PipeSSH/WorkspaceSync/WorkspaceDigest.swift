import Foundation
import PipeBasics

/// The content digest in a `WorkspaceManifest`: SHA-256, computed for every file of a workspace on each sync.
///
/// Files up to `wholeFileLimit` bytes (nearly all of a source tree) are read whole and digested with one call;
/// bigger ones stream through `SHA256Digest` in pieces.
enum WorkspaceDigest {
    static let wholeFileLimit = 8 << 20

    /// Digest of content held in memory (at most `wholeFileLimit` bytes, or a symlink's target).
    static func of(_ bytes: [UInt8]) -> String { SHA256Digest.hex(of: bytes) }
}
