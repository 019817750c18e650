import Foundation
import PipeBasics

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Both ends of the one channel a workspace sync uses (`RemoteScript.syncWorkspace`): reads the host's manifest from
/// stdout, decides what to send, then feeds stdin the request lines and the tar archive, and collects the host's
/// report lines. One round trip: nothing is sent before the host, holding the cache's lock, has said what it has.
final class WorkspaceSync: CommandInput, CommandOutput {
    /// More deletions than this and the cache is rebuilt instead: the host reads the list one byte at a time.
    static let maximumDeletions = 5_000
    /// A delta with at most this many deletions may patch the host's manifest rather than rewrite it (removing a
    /// folder from a parsed manifest scans all of it).
    static let maximumPatchDeletions = 64

    private let root: URL
    private var local: [WorkspaceManifest.Entry] = []
    private let token: String
    private let digestCache: WorkspaceDigestCache
    private var remembered: WorkspaceSyncMemory.Remembered?
    private var digested = false

    private(set) var kind: WorkspaceSyncReport.Kind?
    private(set) var sentEntries = 0
    private(set) var deletedPaths = 0
    private(set) var digestSeconds: Double = 0
    /// Digests computed (not known from `WorkspaceDigestCache`).
    private(set) var computedDigests = 0
    /// Whether the host still held the manifest this coordinator remembered (it sent none).
    private(set) var hostHadRememberedManifest = false
    /// When the host's lines arrived (monotonic seconds).
    private(set) var appliedAt: Double?
    private(set) var clonedAt: Double?
    /// The sync makes the cache's own tree match (a build cache used in place): the host sends what changed in the
    /// tree after its manifest (`pipe-touched`, `WorkspaceTouchedTree`).
    var inPlace = false
    /// Called on the channel's thread when the host says it applied the archive (`pipe-applied`).
    var whenApplied: ((WorkspaceSync) -> Void)?
    /// How an archive of so many bytes (before compression) goes, to a host that has `zstd` or not
    /// (`WorkspaceCompressionChoice`).
    var compression: (_ bytes: Int64, _ hostHasZstd: Bool) -> ArchiveCompression = { _, _ in .none }
    /// How this sync's archive went.
    private(set) var archiveCompression = ArchiveCompression.none
    /// Whether the host said it has `zstd` (`pipe-zstd` before its manifest line).
    private(set) var hostHasZstd = false
    /// When the archive's first and last bytes went to the channel (monotonic seconds): its rate over the link.
    private(set) var firstSentAt: Double?
    private(set) var allSentAt: Double?
    private(set) var errorText = [UInt8]()

    private enum Phase {
        case awaitingManifest
        case readingManifest(Int)
        /// In place: the host's entries (`nil`: no usable copy) wait for its list of what changed in the tree.
        case awaitingTouched([WorkspaceManifest.Entry]?)
        case readingTouched([WorkspaceManifest.Entry]?, touched: Int, children: Int)
        case reporting
    }
    /// The most the host's list of changed entries may hold; a tree changed more than that is sent again whole.
    static let maximumTouchedBytes = 16 << 20
    private var phase = Phase.awaitingManifest
    private var received = [UInt8]()

    private var request = [UInt8]()
    private var requestOffset = 0
    /// Makes the archive on its own thread once the plan is known.
    private var producer: WorkspaceArchiveProducer?
    private var chunk: WorkspaceArchiveProducer.Chunk?
    private var chunkOffset = 0
    private let newManifest = ManifestHolder()
    private var ended = false
    /// The archive's length (compressed, when it was), once it was all sent.
    private(set) var archiveBytes: Int64 = 0

    /// The manifest the host holds once the archive is applied, known once the archive's last file was made.
    final class ManifestHolder {
        var made = false
        var entries: [WorkspaceManifest.Entry] = []
        /// Lines of patches in the host's file after this sync.
        var patchLines = 0
    }
    /// Lines of patches appended to the host's manifest file since it was last written whole.
    private var hostPatchLines = 0

    private struct Plan {
        var isFull: Bool
        var deletions: [String]
        var sends: [WorkspaceManifest.Entry]
    }

    init(root: URL, token: String, digestCache: WorkspaceDigestCache) {
        self.root = root
        self.digestCache = digestCache
        self.token = token
    }

    deinit { producer?.stop() }

    /// Stops making the archive (the sync ended or failed) and waits for the thread that reads the files.
    func close() {
        producer?.stop()
    }

    var entryCount: Int { local.count }

    /// The manifest the host now holds under this sync's token, once the archive was made, and how many lines of
    /// patches its file has.
    var sentManifest: (entries: [WorkspaceManifest.Entry], patchLines: Int)? {
        newManifest.made ? (newManifest.entries, newManifest.patchLines) : nil
    }

    // MARK: - Deciding what to send

    /// Takes the local listing, and the manifest this coordinator remembers sending to the host's cache (if any):
    /// used when the host confirms it still holds it. The comparison waits for that answer: when the host has no
    /// copy (removed, cleaned), digesting every file beforehand would be wasted.
    func prepare(entries: [WorkspaceManifest.Entry], remembered: WorkspaceSyncMemory.Remembered?) {
        local = entries
        self.remembered = remembered
    }

    /// The plan against `hostEntries`; `nil` means the host has no usable copy: everything goes.
    private func delta(
        against hostManifest: [WorkspaceManifest.Entry]?, touched: WorkspaceTouchedTree? = nil
    ) throws -> Plan {
        guard var hostEntries = hostManifest else { return Plan(isFull: true, deletions: [], sends: local) }
        var changedOnHost: [String] = []
        if let touched { (hostEntries, changedOnHost) = touched.apply(toHost: hostEntries, local: local) }
        if !digested {
            let started = MonotonicClock.seconds()
            computedDigests += try WorkspaceScanner.digestFiles(&local, under: root, cache: digestCache)
            digestSeconds += MonotonicClock.seconds() - started
            digested = true
        }
        let delta = WorkspaceDelta(from: hostEntries, to: local)
        let deletions = changedOnHost + delta.deletions
        let listable = deletions.allSatisfy { !$0.contains("\n") && !$0.contains("\r") }
        guard listable && deletions.count <= Self.maximumDeletions else {
            return Plan(isFull: true, deletions: [], sends: local)
        }
        return Plan(isFull: false, deletions: deletions, sends: delta.sends)
    }

    private func adopt(_ plan: Plan) throws {
        kind = plan.isFull ? .full : .delta
        sentEntries = plan.sends.count
        deletedPaths = plan.deletions.count
        // A small delta appends its lines to the host's manifest instead of sending all of it again, until the
        // patches grow to a quarter of the entries: then the whole manifest is written again.
        let patchLines = hostPatchLines + plan.deletions.count + plan.sends.count + 1
        let patches =
            !plan.isFull && plan.deletions.count <= Self.maximumPatchDeletions
            && patchLines <= max(256, local.count / 4)
        archiveCompression = compression(
            plan.sends.reduce(0) { $0 + ($1.kind == .file ? $1.size : 0) }, hostHasZstd)
        let format = archiveCompression == .none ? "tar" : archiveCompression.rawValue
        var lines =
            "pipe-sync \(plan.isFull ? "full" : patches ? "patch" : "delta") \(format) "
            + "\(plan.deletions.count)\n"
        for path in plan.deletions { lines += path + "\n" }
        request = Array(lines.utf8)
        let knownLocal = plan.isFull ? nil : local
        let holder = newManifest
        let stream = WorkspaceTarStream(
            root: root, entries: plan.sends,
            lastFile: (
                "manifest.incoming.\(token)",
                { sent in
                    holder.entries = knownLocal ?? sent
                    holder.made = true
                    holder.patchLines = patches ? patchLines : 0
                    return patches
                        ? WorkspaceManifest.patch(deletions: plan.deletions, sends: sent)
                        : WorkspaceManifest(entries: holder.entries).bytes
                }
            ))
        let source: ArchiveSource
        switch archiveCompression {
        case .none: source = stream
        case .gzip: source = try GzipArchiveSource(compressing: stream)
        case .zstd: source = try ZstdArchiveSource(compressing: stream)
        }
        producer = try WorkspaceArchiveProducer(stream: source)
    }

    // MARK: - CommandInput

    func send(through channel: SSHChannel) throws -> Int? {
        guard let producer else { return 0 }
        if requestOffset < request.count {
            let sent = try request.withUnsafeBytes {
                try channel.write(UnsafeRawBufferPointer(rebasing: $0[requestOffset...]))
            }
            requestOffset += sent
            return sent
        }
        if chunk == nil {
            guard !ended else { return nil }
            switch try producer.next() {
            case .chunk(let next):
                chunk = next
                chunkOffset = 0
                if firstSentAt == nil { firstSentAt = MonotonicClock.seconds() }
            case .waiting:
                return 0
            case .ended:
                ended = true
                allSentAt = MonotonicClock.seconds()
                archiveBytes = producer.finish()
                return nil
            }
        }
        guard let current = chunk else { return 0 }
        let sent = try channel.write(UnsafeRawBufferPointer(rebasing: current.buffer[chunkOffset..<current.count]))
        chunkOffset += sent
        if chunkOffset == current.count {
            producer.recycle(current)
            chunk = nil
        }
        return sent
    }

    /// While the archive's next chunk is being made, the channel's loop waits on it as well as on the socket.
    var waitDescriptor: pollfd? {
        guard let producer, chunk == nil, !ended, requestOffset >= request.count else { return nil }
        return producer.wakeDescriptor
    }

    // MARK: - CommandOutput

    var acceptsStdout: Bool { true }

    func stdout(_ bytes: UnsafeRawBufferPointer) throws {
        received.append(contentsOf: bytes)
        var offset = 0
        defer { if offset > 0 { received.removeFirst(offset) } }
        while true {
            switch phase {
            case .awaitingManifest:
                guard let newline = received[offset...].firstIndex(of: 0x0a) else { return }
                let line = String(decoding: received[offset..<newline], as: UTF8.self)
                offset = newline + 1
                if line == "pipe-zstd" {
                    hostHasZstd = true
                    continue
                }
                let fields = line.split(separator: " ")
                guard fields.first == "pipe-manifest", fields.count == 2 else {
                    throw WorkspaceScanner.Failure(message: "the host answered the sync with '\(line)'")
                }
                if fields[1] == "none" {
                    try hostCopyKnown(nil)
                } else if fields[1] == "same" {
                    // Without the remembered manifest (found damaged here) the copy is rebuilt.
                    hostHadRememberedManifest = remembered != nil
                    hostPatchLines = remembered?.patchLines ?? 0
                    try hostCopyKnown(remembered?.entries)
                } else if let size = Int(fields[1]) {
                    phase = .readingManifest(size)
                } else {
                    throw WorkspaceScanner.Failure(message: "the host answered the sync with '\(line)'")
                }
            case .readingManifest(let size):
                guard received.count - offset >= size else { return }
                let manifest = WorkspaceManifest(bytes: received[offset..<(offset + size)])
                offset += size
                hostPatchLines = manifest?.patchLines ?? 0
                // A manifest Pipe cannot read (another version, damage) means rebuilding the copy, not failing.
                try hostCopyKnown(manifest?.entries)
            case .awaitingTouched(let hostEntries):
                guard let newline = received[offset...].firstIndex(of: 0x0a) else { return }
                let line = String(decoding: received[offset..<newline], as: UTF8.self)
                offset = newline + 1
                let fields = line.split(separator: " ")
                guard fields.count == 3, fields[0] == "pipe-touched", let touched = Int(fields[1]),
                    let children = Int(fields[2]), touched >= 0, children >= 0,
                    touched + children <= Self.maximumTouchedBytes
                else {
                    throw WorkspaceScanner.Failure(message: "the host answered the sync with '\(line)'")
                }
                phase = .readingTouched(hostEntries, touched: touched, children: children)
            case .readingTouched(let hostEntries, let touchedSize, let childrenSize):
                guard received.count - offset >= touchedSize + childrenSize else { return }
                let touched = WorkspaceTouchedTree(
                    touched: received[offset..<(offset + touchedSize)],
                    children: received[(offset + touchedSize)..<(offset + touchedSize + childrenSize)])
                offset += touchedSize + childrenSize
                // A list Pipe cannot read leaves nothing known about the tree: it is sent again whole.
                try adopt(try delta(against: touched == nil ? nil : hostEntries, touched: touched))
                phase = .reporting
            case .reporting:
                guard let newline = received[offset...].firstIndex(of: 0x0a) else { return }
                let line = String(decoding: received[offset..<newline], as: UTF8.self)
                offset = newline + 1
                if line == "pipe-applied" {
                    appliedAt = MonotonicClock.seconds()
                    whenApplied?(self)
                } else if line == "pipe-cloned" {
                    clonedAt = MonotonicClock.seconds()
                }
            }
        }
    }

    /// The host's copy is known (`nil`: none usable); in place, its list of changes comes next.
    private func hostCopyKnown(_ hostEntries: [WorkspaceManifest.Entry]?) throws {
        if inPlace {
            phase = .awaitingTouched(hostEntries)
        } else {
            try adopt(try delta(against: hostEntries))
            phase = .reporting
        }
    }

    func stderr(_ bytes: UnsafeRawBufferPointer) {
        if errorText.count < 65_536 { errorText.append(contentsOf: bytes) }
    }

    func flush() -> Bool { false }
}
