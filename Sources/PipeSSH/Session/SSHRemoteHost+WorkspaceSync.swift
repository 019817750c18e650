import Foundation
import PipeBasics
import PipeCore

extension SSHRemoteHost {
    /// How long a sync waits for another sync of the same cache on this host, in the script's 50 ms turns (10 min).
    static let cacheLockTurns = 12_000

    /// `synchronizeWorkspace(directory:cacheKey:to:)`, for the engine.
    public func syncWorkspace(directory: URL, cacheKey: String, to remoteDirectory: String) throws -> TransferSummary {
        try synchronizeWorkspace(directory: directory, cacheKey: cacheKey, to: remoteDirectory).transfer
    }

    /// Makes `remoteDirectory` (created; it must not exist) a copy of the local `directory`, sending only what the
    /// host's cached copy of it lacks.
    ///
    /// The cache lives in `<work dir>/cache/<cacheKey>/` on the host: `tree/` (the copy) beside `manifest` (path,
    /// kind, mode, size and content digest of every entry). The first sync sends everything as one tar archive;
    /// later ones compare the manifest with the local folder and send only new and changed entries, deleting what
    /// went. The run folder is then cloned from the cache (`cp -c -R -p`: APFS clones on a Mac), never hard-linked,
    /// so a build that edits a file in place changes neither the cache nor another run. Symlinks are sent as links
    /// and never followed; executable bits and empty folders are kept. Syncs of one cache on one host take turns
    /// (a lock folder); all of it happens over one channel, in one round trip.
    ///
    /// An empty `remoteDirectory` syncs in place: the cache's tree itself is made to match the local folder exactly
    /// (what the run changed, added or removed there since the last sync is undone; `WorkspaceTouchedTree`) and
    /// nothing is cloned: a build cache, whose tree a run uses where it is, under a lease only that run holds.
    ///
    /// The archive's arrival is vouched for by SSH's MAC and by its last member, the manifest (see
    /// `RemoteScript.syncWorkspace`); the host does not digest it again.
    ///
    /// - Throws: `RemoteError` `.commandFailed` for a local file that cannot be read, a bad `cacheKey` or an archive
    ///   that arrived without its manifest, `.diskFull`, `.timeout` when no byte moved for `transferStallSeconds`,
    ///   `.connectionLost`.
    public func synchronizeWorkspace(directory: URL, cacheKey: String, to remoteDirectory: String) throws
        -> WorkspaceSyncReport
    {
        let started = try startSync(directory: directory, cacheKey: cacheKey, to: remoteDirectory)
        defer { started.close() }
        let ending: RemoteCommand.Ending
        do {
            ending = try started.remote.run(deadline: .never, idleSeconds: transferStallSeconds)
        } catch let failure as WorkspaceScanner.Failure {
            try? stopQuietly(started.remote)
            throw RemoteError(.commandFailed, host: name, "\(started.what) failed: \(failure.message)")
        }
        return try finishSync(started, ending: ending)
    }

    /// A workspace sync whose command runs on the host and whose local folder is listed: what is left is driving
    /// its channel (alone, or beside other commands) and `finishSync`.
    final class StartedSync {
        let remote: RemoteCommand
        let sync: WorkspaceSync
        let what: String
        let remoteDirectory: String
        let root: URL
        let token: String
        let target: String
        let startedAt: Double
        let listSeconds: Double
        private let loading: DispatchGroup
        /// Writing down what was sent, from the host's `pipe-applied` on.
        let remembering: DispatchGroup

        init(
            remote: RemoteCommand, sync: WorkspaceSync, what: String, remoteDirectory: String, root: URL,
            token: String, target: String, startedAt: Double, listSeconds: Double, loading: DispatchGroup,
            remembering: DispatchGroup
        ) {
            self.remote = remote
            self.sync = sync
            self.what = what
            self.remoteDirectory = remoteDirectory
            self.root = root
            self.token = token
            self.target = target
            self.startedAt = startedAt
            self.listSeconds = listSeconds
            self.loading = loading
            self.remembering = remembering
        }

        /// Closes the channel once the remembered state finished loading on its thread.
        func close() {
            remote.close()
            sync.close()
            loading.wait()
        }
    }

    /// Starts the host's side of a sync and lists (and, with a remembered manifest, compares) the local folder while
    /// the host takes its lock and reads its manifest.
    func startSync(directory: URL, cacheKey: String, to remoteDirectory: String) throws -> StartedSync {
        let started = MonotonicClock.seconds()
        let inPlace = remoteDirectory.isEmpty
        let what =
            "the workspace sync of \(directory.path) to "
            + (inPlace ? "the build cache \(cacheKey)" : remoteDirectory)
        guard Self.isValidCacheKey(cacheKey) else {
            throw RemoteError(
                .commandFailed, host: name,
                "\(what) cannot start: the cache key '\(cacheKey)' must be letters, digits, '.', '-' or '_'")
        }
        var info = stat()
        guard lstat(directory.path, &info) == 0, info.st_mode & S_IFMT == S_IFDIR else {
            throw RemoteError(
                .commandFailed, host: name,
                "cannot sync \(directory.path): it is not a folder (a link is never followed)")
        }
        // Only the coordinator's own folders above it may be links (`/tmp` on some systems); it is not one.
        let root = directory.deletingLastPathComponent().resolvingSymlinksInPath().appendingPathComponent(
            directory.lastPathComponent)
        let cacheFolder = Self.cacheFolder(workDirectory: session.host.workDirectory, key: cacheKey)
        let target = WorkspaceSyncMemory.target(host: session.host, cacheKey: cacheKey)
        let memory = syncMemory
        let recalled = memory.recall(target, folder: syncStateDirectory)
        // What this coordinator remembers is read on another thread while this one starts the command and lists.
        let loading = DispatchGroup()
        let loaded = RememberedBox()
        let stateDirectory = syncStateDirectory
        DispatchQueue.global().async(group: loading) {
            loaded.value = recalled?.manifest()
            memory.loadDigests(root: root.path, folder: stateDirectory)
        }
        let token = UUID().uuidString.replacingOccurrences(of: "-", with: "").prefix(16).lowercased()
        let sync = WorkspaceSync(root: root, token: token, digestCache: memory.digests)
        sync.inPlace = inPlace
        // Once the host holds the new manifest under this token, what was sent is written down on another thread
        // while the host clones the run folder (≈ 45 ms for 10,000 files, which no longer add to the sync).
        let remembering = DispatchGroup()
        sync.whenApplied = { applied in
            let (sent, kind, computed) = (applied.sentManifest, applied.kind, applied.computedDigests)
            DispatchQueue.global().async(group: remembering) {
                if let sent {
                    memory.remember(
                        token: token, entries: sent.entries, patchLines: sent.patchLines, for: target,
                        folder: stateDirectory)
                }
                if computed > 0 || kind == .full {
                    memory.saveDigests(root: root.path, entries: sent?.entries ?? [], folder: stateDirectory)
                }
            }
        }
        let line = RemoteScript.commandLine(
            script: RemoteScript.syncWorkspace, name: "pipe-sync",
            arguments: [
                cacheFolder, inPlace ? "-" : remoteDirectory, token, String(Self.cacheLockTurns),
                recalled?.token ?? "-",
            ])
        // The local folder is listed on another thread while the command starts (a channel open and an exec: two
        // round trips) and while the host takes the lock and reads its manifest.
        let listing = DispatchGroup()
        let listed = ListingBox()
        DispatchQueue.global().async(group: listing) {
            let start = MonotonicClock.seconds()
            listed.entries = Result { try WorkspaceScanner.entries(under: root) }
            listed.seconds = MonotonicClock.seconds() - start
        }
        let remote: RemoteCommand
        do {
            remote = try RemoteCommand(
                line, on: session, inOwnProcessGroup: true, input: sync, output: sync,
                deadline: Deadline(secondsFromNow: Self.startSeconds))
        } catch {
            listing.wait()
            loading.wait()
            throw error
        }
        // Chosen once the command's channel has opened, which measured a round trip to the host.
        let (setting, roundTrip, observed) = (
            session.host.uploadCompression, session.roundTripSeconds, memory.linkRate(for: session.host)
        )
        sync.compression = { bytes, hostHasZstd in
            WorkspaceCompressionChoice.choose(
                setting, bytes: bytes, hostHasZstd: hostHasZstd, roundTripSeconds: roundTrip,
                observedBytesPerSecond: observed)
        }
        listing.wait()
        do {
            let entries = try listed.entries.get()
            loading.wait()
            sync.prepare(entries: entries, remembered: loaded.value)
            return StartedSync(
                remote: remote, sync: sync, what: what, remoteDirectory: remoteDirectory, root: root, token: token,
                target: target, startedAt: started, listSeconds: listed.seconds, loading: loading,
                remembering: remembering)
        } catch let failure as WorkspaceScanner.Failure {
            try? stopQuietly(remote)
            remote.close()
            loading.wait()
            throw RemoteError(.commandFailed, host: name, "\(what) cannot start: \(failure.message)")
        }
    }

    /// Checks how the host's side of a sync ended and what it applied, and remembers what was sent.
    func finishSync(_ started: StartedSync, ending: RemoteCommand.Ending) throws -> WorkspaceSyncReport {
        let (sync, what) = (started.sync, started.what)
        let remoteDirectory = started.remoteDirectory.isEmpty ? "the build cache's tree" : started.remoteDirectory
        // A sync that failed after the host applied the archive (the clone) still leaves a cache worth remembering.
        started.remembering.wait()
        guard case .exited(let exit) = ending else {
            try? stopQuietly(started.remote)
            throw RemoteError(
                .timeout, host: name,
                "\(what) stalled: no byte moved for \(Int(transferStallSeconds)) s; \(remoteDirectory) on the host is "
                    + "incomplete")
        }
        let hostErrors = String(decoding: sync.errorText, as: UTF8.self).split(separator: "\n")
            .filter { !$0.hasPrefix("pipe-lock-wait") }.joined(separator: "\n")
        guard exit == .exited(0), let clonedAt = sync.clonedAt else {
            let kind: RemoteError.Kind = hostErrors.contains("No space left on device") ? .diskFull : .commandFailed
            throw RemoteError(
                kind, host: name,
                "\(what) failed: the host's side ended with \(exit.artifactText): "
                    + (hostErrors.isEmpty ? "no message" : hostErrors)
                    + "; \(remoteDirectory) on the host is incomplete")
        }
        if sync.archiveCompression == .none, sync.archiveBytes >= WorkspaceSyncMemory.linkRateMinimumBytes,
            let first = sync.firstSentAt, let last = sync.allSentAt, last > first
        {
            syncMemory.noteLinkRate(Double(sync.archiveBytes) / (last - first), for: session.host)
        }
        let finished = MonotonicClock.seconds()
        return WorkspaceSyncReport(
            kind: sync.kind ?? .full,
            transfer: TransferSummary(
                bytes: sync.archiveBytes, sha256: "", seconds: finished - started.startedAt,
                destination: remoteDirectory),
            entries: sync.entryCount, entriesSent: sync.sentEntries, pathsDeleted: sync.deletedPaths,
            listSeconds: started.listSeconds, digestSeconds: sync.digestSeconds,
            cloneSeconds: clonedAt - (sync.appliedAt ?? clonedAt),
            hostSentManifest: !sync.hostHadRememberedManifest, filesDigested: sync.computedDigests,
            compression: sync.archiveCompression)
    }

    /// Where a coordinator keeps `syncStateDirectory` unless told otherwise: `$PIPE_SYNC_STATE` (empty: in the
    /// process only), else `$XDG_CACHE_HOME/pipe/workspace-sync`, else `~/.cache/pipe/workspace-sync`.
    public static func defaultSyncStateDirectory(environment: [String: String]) -> URL? {
        if let chosen = environment["PIPE_SYNC_STATE"] {
            return chosen.isEmpty ? nil : URL(fileURLWithPath: chosen)
        }
        if let cache = environment["XDG_CACHE_HOME"], cache.hasPrefix("/") {
            return URL(fileURLWithPath: cache).appendingPathComponent("pipe/workspace-sync")
        }
        guard let home = environment["HOME"], home.hasPrefix("/") else { return nil }
        return URL(fileURLWithPath: home).appendingPathComponent(".cache/pipe/workspace-sync")
    }

    /// The cache folder for `key` under the host's work folder (relative paths start in the login's home).
    static func cacheFolder(workDirectory: String, key: String) -> String {
        var base = workDirectory
        if base == "~" { base = "." } else if base.hasPrefix("~/") { base = String(base.dropFirst(2)) }
        while base.count > 1 && base.hasSuffix("/") { base.removeLast() }
        return (base.isEmpty ? "." : base) + "/cache/" + key
    }

    static func isValidCacheKey(_ key: String) -> Bool {
        !key.isEmpty && !key.hasPrefix(".") && key.count <= 128
            && key.unicodeScalars.allSatisfy {
                ("a"..."z").contains($0) || ("A"..."Z").contains($0) || ("0"..."9").contains($0)
                    || "._-".unicodeScalars.contains($0)
            }
    }
}

/// The manifest read on another thread.
private final class RememberedBox: @unchecked Sendable {
    var value: WorkspaceSyncMemory.Remembered?
}

/// The local folder's listing, made on another thread (read after its group's `wait`).
private final class ListingBox: @unchecked Sendable {
    var entries: Result<[WorkspaceManifest.Entry], Error> = .failure(
        WorkspaceScanner.Failure(message: "the listing of the workspace did not run"))
    var seconds = 0.0
}
