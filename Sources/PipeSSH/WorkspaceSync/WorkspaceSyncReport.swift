import PipeCore

/// What one workspace sync did, and where its time went (`SSHRemoteHost.synchronizeWorkspace`).
public struct WorkspaceSyncReport: Sendable, Equatable {
    /// `full`: the host had no usable copy, everything went; `delta`: only what changed went.
    public enum Kind: String, Sendable {
        case full
        case delta
    }

    public var kind: Kind
    /// The archive sent (its bytes; no digest, see `TransferSummary.sha256`), the whole sync's seconds, the run folder.
    public var transfer: TransferSummary
    /// Folders, files and symlinks in the local workspace.
    public var entries: Int
    /// Of those, how many were sent.
    public var entriesSent: Int
    /// Paths deleted from the host's copy (a folder counts once, with everything in it).
    public var pathsDeleted: Int
    /// Listing the local workspace (while the host starts its side).
    public var listSeconds: Double
    /// Digesting every local file to compare with the host's manifest (0 for a full sync: digests are taken as the
    /// files are sent).
    public var digestSeconds: Double
    /// Cloning the host's copy into the run folder (`cp -c -R -p`: APFS clones on a Mac, a copy elsewhere).
    public var cloneSeconds: Double
    /// Whether the host sent its manifest: `false` when it still held the one this coordinator remembered
    /// (`WorkspaceSyncMemory`) and only confirmed its token.
    public var hostSentManifest: Bool
    /// Local files read to digest them before comparing with the host's manifest; the others' digests were known
    /// from an earlier sync (same stamp). 0 for a full sync (files are digested as they are sent).
    public var filesDigested: Int
    /// How the archive went (`compression:` of the host; `transfer.bytes` counts what went).
    public var compression: ArchiveCompression = .none
}
