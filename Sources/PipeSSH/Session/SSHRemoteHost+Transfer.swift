import Foundation
import PipeBasics
import PipeCore

extension SSHRemoteHost {
    /// Uploads the contents of a local folder into `remoteDirectory` (created; relative paths are relative to the
    /// login's home) as one tar stream, verified by the SHA-256 of that stream taken on both ends.
    ///
    /// - Throws: `RemoteError` `.transferCorrupt` when the digests differ, `.diskFull` when the host's disk is
    ///   full, `.timeout` when no byte moved for `transferStallSeconds`, `.commandFailed` when a tar failed.
    public func upload(directory: URL, to remoteDirectory: String) throws -> TransferSummary {
        let started = MonotonicClock.seconds()
        var isFolder: ObjCBool = false
        guard FileManager.default.fileExists(atPath: directory.path, isDirectory: &isFolder), isFolder.boolValue else {
            throw RemoteError(.commandFailed, host: name, "cannot upload \(directory.path): it is not a folder")
        }
        let tar = try localTar { try LocalTar.archiving(directory) }
        defer { tar.abandon() }
        let input = LocalTarInput(tar: tar)
        let output = CollectedOutput()
        let line = RemoteScript.commandLine(
            script: RemoteScript.extractUpload, name: "pipe-upload", arguments: [remoteDirectory])
        let remote = try RemoteCommand(
            line, on: session, inOwnProcessGroup: true, input: input, output: output,
            deadline: Deadline(secondsFromNow: Self.startSeconds))
        defer { remote.close() }
        let what = "the upload of \(directory.path) to \(remoteDirectory)"
        let ending: RemoteCommand.Ending
        do {
            ending = try remote.run(deadline: .never, idleSeconds: transferStallSeconds)
        } catch let failure as LocalTarFailure {
            try? stopQuietly(remote)
            throw RemoteError(.commandFailed, host: name, "\(what) failed: \(failure.message)")
        }
        guard case .exited(let exit) = ending else {
            try? stopQuietly(remote)
            throw RemoteError(
                .timeout, host: name,
                "\(what) stalled: no byte moved for \(Int(transferStallSeconds)) s; \(remoteDirectory) on the host is "
                    + "incomplete")
        }
        let local = tar.finish(waitingAtMost: 30)
        let localFailure = RemoteError(
            .commandFailed, host: name, "\(what) failed: the local tar exited with \(local.status): \(local.errors)")
        // Whichever side failed first: a host that stops early makes the local tar fail writing, and a local tar
        // that fails sends a truncated archive the host's tar complains about.
        if input.reachedEnd && local.status != 0 { throw localFailure }
        let hostErrors = String(decoding: output.stderrData, as: UTF8.self).trimmingCharacters(
            in: .whitespacesAndNewlines)
        guard exit == .exited(0) else {
            let kind: RemoteError.Kind = hostErrors.contains("No space left on device") ? .diskFull : .commandFailed
            throw RemoteError(
                kind, host: name,
                "\(what) failed: the host's side ended with \(exit.artifactText): "
                    + (hostErrors.isEmpty ? "no message" : hostErrors)
                    + "; \(remoteDirectory) on the host is incomplete")
        }
        if local.status != 0 { throw localFailure }
        let sent = input.finalDigest()
        let received = Self.field("pipe-sha256", in: String(decoding: output.stdoutData, as: UTF8.self))
        guard received == sent else {
            throw RemoteError(
                .transferCorrupt, host: name,
                "\(what) arrived damaged: the host's SHA-256 of the stream is \(received ?? "missing") but "
                    + "\(input.byteCount) bytes with SHA-256 \(sent) were sent; \(remoteDirectory) on the host "
                    + "cannot be trusted: remove it and upload again")
        }
        return TransferSummary(
            bytes: input.byteCount, sha256: sent, seconds: MonotonicClock.seconds() - started,
            destination: remoteDirectory)
    }

    /// Downloads a remote file or folder (relative paths are relative to the login's home) into `localParent` as a
    /// tar stream. It is extracted into a hidden temporary folder inside `localParent`, checked against the host's
    /// SHA-256 of the stream (which covers its length), and only then renamed to its own name: an interrupted or damaged
    /// transfer never leaves something that looks whole. Memory stays flat (at most ~1 MiB waits for the extraction).
    ///
    /// - Throws: `RemoteError` `.transferCorrupt` on a digest or size mismatch or on cancellation,
    ///   `.connectionLost` when the connection drops, `.timeout` when no byte moved for `transferStallSeconds`,
    ///   `.commandFailed` when the remote path does not exist, a tar failed or the local item already exists.
    ///   In every case the temporary folder is removed.
    public func download(_ remotePath: String, into localParent: URL, cancellation: CancellationToken) throws
        -> TransferSummary
    {
        var missing = false
        var beside: Result<CapturedOutput, Error>?
        return try download(
            remotePath, into: localParent, cancellation: cancellation, alongside: nil,
            limitBytes: LayerSpec.defaultArtifactLimitBytes,
            missing: &missing, beside: &beside)
    }

    /// `download`, with `command` run on a second channel of the same session while the stream arrives (one loop
    /// drives both, so the command's start, run and end overlap the transfer instead of following it), and without
    /// the separate check that the item exists: the download's own `pipe-missing` answer says so.
    public func pullBack(
        _ remotePath: String, into localParent: URL, cancellation: CancellationToken, alongside command: String?,
        commandTimeoutSeconds: Double, limitBytes: Int64
    ) -> PullBackResult {
        var missing = false
        var beside: Result<CapturedOutput, Error>?
        let side = command.map { (line: $0, timeoutSeconds: commandTimeoutSeconds) }
        let transfer = Result {
            try download(
                remotePath, into: localParent, cancellation: cancellation, alongside: side,
                limitBytes: limitBytes, missing: &missing, beside: &beside)
        }
        if beside == nil, let command {
            // The download stopped before the command could run beside it.
            beside = Result { try capture(command, stdin: nil, timeoutSeconds: commandTimeoutSeconds) }
        }
        return PullBackResult(transfer: transfer, missing: missing, command: beside)
    }

    private func download(
        _ remotePath: String, into localParent: URL, cancellation: CancellationToken,
        alongside side: (line: String, timeoutSeconds: Double)?, limitBytes: Int64, missing: inout Bool,
        beside: inout Result<CapturedOutput, Error>?
    ) throws -> TransferSummary {
        let started = MonotonicClock.seconds()
        let (remoteParent, itemName) = try Self.split(remotePath, host: name)
        let destination = localParent.appendingPathComponent(itemName)
        let what = "the download of \(remotePath)"
        guard (try? destination.checkResourceIsReachable()) != true,
            (try? FileManager.default.destinationOfSymbolicLink(atPath: destination.path)) == nil
        else {
            throw RemoteError(
                .commandFailed, host: name,
                "\(what) stopped before it began: \(destination.path) already exists, and Pipe never overwrites a "
                    + "pulled-back item")
        }
        let limit = try Self.extractionLimit(limitBytes, in: localParent, host: name, what: what)
        let staging = localParent.appendingPathComponent(".pipe-partial-\(itemName)-\(UUID().uuidString.prefix(8))")
        do {
            try FileManager.default.createDirectory(at: staging, withIntermediateDirectories: true)
        } catch {
            throw RemoteError(
                .commandFailed, host: name,
                "\(what) cannot start: cannot create \(staging.path): \(error.localizedDescription)")
        }
        defer { try? FileManager.default.removeItem(at: staging) }

        let source = DownloadSource(
            path: remotePath, parent: remoteParent, item: itemName, staging: staging, what: what,
            splitMinimumBytes: splitDownloadMinimumBytes, limit: limit)
        let openSecond = secondSessionForDownloads
        // The command beside starts first: for a result bundle it is the longer of the two on the host
        // (`xcresulttool` reads the whole bundle, while tar sends a small one in a few milliseconds), so the
        // download's channel opens while it runs instead of before it. Measured on the emulated host: the layer's
        // end came 6 ms sooner.
        let sideOutput = CollectedOutput()
        let sideDeadline = Deadline(secondsFromNow: side?.timeoutSeconds)
        let sideRemote = try side.map {
            try RemoteCommand(
                $0.line, on: session, inOwnProcessGroup: true, input: DataInput(nil), output: sideOutput,
                deadline: sideDeadline.earlier(Deadline(secondsFromNow: Self.startSeconds)))
        }
        defer { sideRemote?.close() }
        let first: DownloadStream
        do {
            first = try startDownloadStream(source, part: openSecond == nil ? 0 : 1)
        } catch {
            // The caller runs the command again on its own when the download could not run beside it.
            if let sideRemote { try? stopQuietly(sideRemote) }
            throw error
        }
        defer { first.close() }
        // The second part starts on its own session as soon as the first announces a split plan; it is stopped and
        // waited for on every way out, before the staging folder goes.
        var second: SecondDownloadPart?
        defer { second?.abandon() }
        let settings = (grace: terminationGraceSeconds, stall: transferStallSeconds, fault: downloadChunkFault)
        let stopFirst = {
            if second == nil, let openSecond, let plan = first.output.plan, plan.first == "split" {
                second = SecondDownloadPart(
                    source: source, plan: plan, open: openSecond, graceSeconds: settings.grace,
                    stallSeconds: settings.stall,
                    fault: settings.fault, cancellation: cancellation)
            }
            return cancellation.isCancelled
        }
        let ending: RemoteCommand.Ending
        do {
            if let sideRemote {
                let endings = try RemoteCommand.runTogether(
                    [first.remote, sideRemote],
                    limits: [
                        (.never, transferStallSeconds, stopFirst),
                        (sideDeadline, nil, { sideOutput.overflow != nil }),
                    ])
                ending = endings[0]
                beside = Result {
                    try captured(sideRemote, output: sideOutput, ending: endings[1], command: side?.line ?? "")
                }
            } else {
                ending = try first.remote.run(deadline: .never, idleSeconds: transferStallSeconds, stop: stopFirst)
            }
        } catch {
            // The command beside the download is stopped too: the caller may run it again on its own.
            if let sideRemote { try? stopQuietly(sideRemote) }
            throw streamFailure(error, of: first)
        }
        var received = [try finishDownloadStream(first, ending: ending, cancellation: cancellation, missing: &missing)]
        if openSecond != nil && first.output.plan == nil {
            // A first part that may have sent only its half must say so; without its plan line nothing is trusted.
            throw RemoteError(
                .transferCorrupt, host: name,
                "\(what) could not be checked: the host did not say whether it split the item in two; nothing was kept")
        }
        if let plan = first.output.plan, plan.first == "split" {
            // When no second session could be opened, the second part follows the first on this one.
            received.append(
                try second?.wait()
                    ?? receiveDownloadPart(
                        source, part: 2, plan: plan, cancellation: cancellation, stop: { cancellation.isCancelled }))
        }
        try checkExtracted(received, source: source)
        do {
            try FileManager.default.moveItem(at: staging.appendingPathComponent(itemName), to: destination)
        } catch {
            throw RemoteError(
                .commandFailed, host: name,
                "\(what) arrived intact but could not be moved to \(destination.path): \(error.localizedDescription)")
        }
        // One stream: its digest. Two: the digest of the two streams' digests, one a line, in part order.
        let digest =
            received.count == 1
            ? received[0].digest
            : SHA256Digest.hex(of: Data(received.map { $0.digest + "\n" }.joined().utf8))
        return TransferSummary(
            bytes: received.reduce(0) { $0 + $1.bytes }, sha256: digest, seconds: MonotonicClock.seconds() - started,
            destination: destination.path, streams: received.count, sessions: second?.hadItsOwnSession == true ? 2 : 1)
    }

    /// Where a download comes from and goes to.
    struct DownloadSource: Sendable {
        /// The remote path as asked for.
        var path: String
        /// The remote folder holding the item, and the item's name in it.
        var parent: String
        var item: String
        /// The local folder the item is extracted into before it is moved to its own name.
        var staging: URL
        /// "the download of …", for messages.
        var what: String
        /// `splitDownloadMinimumBytes` of the host that started the download: both parts must plan with it.
        var splitMinimumBytes: Int64
        /// The most the item's files may hold, and why that much.
        var limit: ExtractionLimit
    }

    /// What a pull-back may extract: the layer's artifact limit, or less when the coordinator's disk holds less.
    struct ExtractionLimit: Sendable {
        var bytes: Int64
        var reason: String
    }

    /// Free space the coordinator keeps for its own records whatever a pull-back brings.
    static let reservedLocalBytes: Int64 = 256 << 20

    /// The limit for a pull-back into `folder`, checked against the free space there before anything starts.
    static func extractionLimit(_ limitBytes: Int64, in folder: URL, host: String, what: String) throws
        -> ExtractionLimit
    {
        var info = statvfs()
        guard statvfs(folder.path, &info) == 0 else {
            return ExtractionLimit(bytes: limitBytes, reason: "the artifact limit (`artifact-limit`)")
        }
        let free = Int64(info.f_bavail) * Int64(info.f_frsize)
        guard free > reservedLocalBytes else {
            throw RemoteError(
                .commandFailed, host: host,
                "\(what) did not start: the coordinator's disk has only \(free / (1 << 20)) MiB free at \(folder.path), "
                    + "less than the \(reservedLocalBytes / (1 << 20)) MiB Pipe keeps for its records; free space there"
            )
        }
        if free - reservedLocalBytes < limitBytes {
            return ExtractionLimit(
                bytes: free - reservedLocalBytes,
                reason: "the coordinator's free space at \(folder.path) less \(reservedLocalBytes / (1 << 20)) MiB")
        }
        return ExtractionLimit(bytes: limitBytes, reason: "the artifact limit (`artifact-limit`)")
    }

    /// One tar stream of a download on its way into the staging folder: the host's command and its extraction.
    final class DownloadStream {
        let source: DownloadSource
        let remote: RemoteCommand
        let tar: PulledArchiveExtractor
        let output: ExtractionOutput

        var what: String { source.what }

        init(source: DownloadSource, remote: RemoteCommand, tar: PulledArchiveExtractor, output: ExtractionOutput) {
            self.source = source
            self.remote = remote
            self.tar = tar
            self.output = output
        }

        func close() {
            remote.close()
            tar.abandon()
        }
    }

    /// What one stream brought, checked: its length, its digest (equal to the host's), its plan line, and the
    /// links it made (checked once the whole item is in place).
    struct ReceivedStream: Sendable {
        var bytes: Int64
        var digest: String
        var plan: [Substring]?
        var links: [ArchiveMemberName] = []
        var extractedBytes: Int64 = 0
    }

    /// Starts the extraction, then `RemoteScript.archiveDownload` for `part` (0: the whole item).
    func startDownloadStream(_ source: DownloadSource, part: Int) throws -> DownloadStream {
        let tar = try localTar {
            try PulledArchiveExtractor(into: source.staging, item: source.item, maximumBytes: source.limit.bytes)
        }
        let line = RemoteScript.commandLine(
            script: RemoteScript.archiveDownload, name: "pipe-download",
            arguments: [source.parent, source.item, String(part), String(source.splitMinimumBytes)])
        do {
            let output = ExtractionOutput(extractor: tar, fault: downloadChunkFault, awaitsPlan: part != 0)
            let remote = try RemoteCommand(
                line, on: session, inOwnProcessGroup: true, input: DataInput(nil), output: output,
                deadline: Deadline(secondsFromNow: Self.startSeconds))
            return DownloadStream(source: source, remote: remote, tar: tar, output: output)
        } catch {
            tar.abandon()
            throw error
        }
    }

    /// Runs one part of a split download on this session, start to checked end; its plan must be `plan` (but for
    /// its bytes).
    func receiveDownloadPart(
        _ source: DownloadSource, part: Int, plan: [Substring], cancellation: CancellationToken, stop: () -> Bool
    ) throws -> ReceivedStream {
        let stream = try startDownloadStream(source, part: part)
        defer { stream.close() }
        let ending: RemoteCommand.Ending
        do {
            ending = try stream.remote.run(deadline: .never, idleSeconds: transferStallSeconds, stop: stop)
        } catch {
            throw streamFailure(error, of: stream)
        }
        var missing = false
        return try finishDownloadStream(
            stream, ending: ending, cancellation: cancellation, missing: &missing, expectedPlan: plan)
    }

    /// The error to throw when driving a stream failed: an extraction that stopped taking bytes says why.
    private func streamFailure(_ error: Error, of stream: DownloadStream) -> Error {
        guard let failure = error as? LocalTarFailure else { return error }
        let ending = stream.tar.finish(waitingAtMost: 5)
        try? stopQuietly(stream.remote)
        switch ending {
        case .refused(let reason): return refusal(reason, of: stream.source)
        case .failed(let message):
            return RemoteError(
                .commandFailed, host: name, "\(stream.what) failed locally: \(message); nothing was kept")
        case .extracted:
            return RemoteError(
                .commandFailed, host: name, "\(stream.what) failed locally: \(failure.message); nothing was kept")
        }
    }

    /// What the host sent that Pipe never keeps: an infrastructure failure of this host.
    func refusal(_ reason: String, of source: DownloadSource) -> RemoteError {
        RemoteError(
            .refusedContent, host: name,
            "sent \(DisplayEscaping.escaped(source.path)), which was refused: \(reason); nothing of that item was kept")
    }

    /// Checks how a stream ended — interrupted, stalled, missing, the host's tar, the digest, the extraction — and
    /// returns what it brought once all of it is in the staging folder.
    ///
    /// `expectedPlan`: for a second part, the first part's plan, which its own must repeat (but for its bytes).
    private func finishDownloadStream(
        _ stream: DownloadStream, ending: RemoteCommand.Ending, cancellation: CancellationToken, missing: inout Bool,
        expectedPlan: [Substring]? = nil
    ) throws -> ReceivedStream {
        let (output, tar, what) = (stream.output, stream.tar, stream.what)
        switch ending {
        case .stopped:
            try? stopQuietly(stream.remote)
            throw RemoteError(
                .transferCorrupt, host: name,
                "\(what) was interrupted (\(cancellation.cancellationReason ?? "cancelled")) after \(output.byteCount) "
                    + "bytes; the partial copy was removed")
        case .timedOut:
            try? stopQuietly(stream.remote)
            throw RemoteError(
                .timeout, host: name,
                "\(what) stalled: no byte arrived for \(Int(transferStallSeconds)) s; the partial copy was removed")
        case .exited:
            break
        }

        let report = String(decoding: output.errorText, as: UTF8.self)
        if report.split(separator: "\n").contains("pipe-missing") {
            missing = true
            throw RemoteError(
                .commandFailed, host: name, "\(what) failed: \(stream.source.path) does not exist on the host")
        }
        if let expectedPlan, output.plan?.dropLast() != expectedPlan.dropLast() {
            throw RemoteError(
                .transferCorrupt, host: name,
                "\(what) was split in two, but its two halves were planned from different listings ("
                    + "\(expectedPlan.joined(separator: " ")) against \(output.plan?.joined(separator: " ") ?? "none")): "
                    + "\(stream.source.path) changed on the host while it was read; nothing was kept")
        }
        let flushed = try output.flushAll(until: Deadline(secondsFromNow: transferStallSeconds))
        let local = tar.finish(waitingAtMost: transferStallSeconds)
        let hostMessages = report.split(separator: "\n").filter { !$0.hasPrefix("pipe-") }.joined(separator: "\n")
        let hostTarStatus = Self.field("pipe-tar-status", in: report)
        guard hostTarStatus == "0" else {
            throw RemoteError(
                .commandFailed, host: name,
                "\(what) failed: tar on the host ended with \(hostTarStatus ?? "no status"): "
                    + (hostMessages.isEmpty ? "no message" : hostMessages) + "; nothing was kept")
        }
        let expectedDigest = Self.field("pipe-sha256", in: report)
        let digest = output.finalDigest()
        // The host's digest covers every byte of the stream: equal digests mean equal length too.
        guard expectedDigest == digest else {
            throw RemoteError(
                .transferCorrupt, host: name,
                "\(what) arrived damaged: the host sent a stream with SHA-256 \(expectedDigest ?? "missing"), Pipe "
                    + "received \(output.byteCount) bytes with SHA-256 \(digest); the partial copy was removed: "
                    + "download it again")
        }
        switch local {
        case .refused(let reason):
            throw refusal(reason, of: stream.source)
        case .failed(let message):
            throw RemoteError(
                .commandFailed, host: name,
                "\(what) arrived intact but could not be extracted locally: \(message); nothing was kept")
        case .extracted(let links, let bytes):
            guard flushed else {
                throw RemoteError(
                    .commandFailed, host: name,
                    "\(what) arrived intact but the extraction stopped taking it; nothing was kept")
            }
            return ReceivedStream(
                bytes: output.byteCount, digest: digest, plan: output.plan, links: links, extractedBytes: bytes)
        }
    }

    /// The whole item is in the staging folder: its links must all lead inside it, and its parts together must
    /// stay within the limit each kept on its own.
    private func checkExtracted(_ received: [ReceivedStream], source: DownloadSource) throws {
        let total = received.reduce(0) { $0 + $1.extractedBytes }
        guard total <= source.limit.bytes else {
            throw refusal("it holds more than \(source.limit.bytes) bytes, \(source.limit.reason)", of: source)
        }
        let links = received.flatMap(\.links)
        if let escape = SymlinkContainment.firstEscape(among: links, in: source.staging) {
            throw refusal("it holds a link `\(escape.link.display)`, and \(escape.why)", of: source)
        }
        if !FileManager.default.fileExists(atPath: source.staging.appendingPathComponent(source.item).path),
            (try? FileManager.default.destinationOfSymbolicLink(
                atPath: source.staging.appendingPathComponent(source.item).path)) == nil
        {
            throw refusal("the archive holds no member named `\(DisplayEscaping.escaped(source.item))`", of: source)
        }
    }

    /// Kills an abandoned transfer's process group, without waiting for it to say more.
    func stopQuietly(_ remote: RemoteCommand) throws {
        remote.abandonInput()
        if let group = remote.processGroup { try terminate(RemoteProcessGroup(id: group), graceSeconds: 1) }
    }

    private func localTar<Started>(_ start: () throws -> Started) throws -> Started {
        do {
            return try start()
        } catch let failure as LocalTarFailure {
            throw RemoteError(.commandFailed, host: name, failure.message)
        }
    }

    /// `remotePath`'s folder and last component; refuses paths without a real last component.
    static func split(_ remotePath: String, host: String) throws -> (parent: String, name: String) {
        var path = remotePath
        while path.count > 1 && path.hasSuffix("/") { path.removeLast() }
        let parts = path.split(separator: "/", omittingEmptySubsequences: false)
        guard let last = parts.last, !last.isEmpty, last != ".", last != ".." else {
            throw RemoteError(
                .commandFailed, host: host, "cannot download '\(remotePath)': name a file or folder, not '\(path)'")
        }
        let parent = parts.dropLast().joined(separator: "/")
        return (parts.count == 1 ? "." : (parent.isEmpty ? "/" : parent), String(last))
    }

    /// The value after `name ` on the first line that starts with it.
    static func field(_ name: String, in text: String) -> String? {
        for line in text.split(separator: "\n") where line.hasPrefix(name + " ") {
            let value = line.dropFirst(name.count + 1).trimmingCharacters(in: .whitespaces)
            return value.split(separator: " ").first.map(String.init)
        }
        return nil
    }
}
