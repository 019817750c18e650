import Foundation
import PipeBasics

/// Runs one pipeline: checkout → host → simulator → workspace upload → layers (plugins) → verdict.
///
/// Returns when the run has ended. Layers run as soon as the layers they need have ended, several at a time, each on
/// a thread and an SSH connection of its own (an SSH session belongs to one thread; `RunEngine+Schedule.swift`);
/// cancellation arrives through the `CancellationToken` that every wait loop polls. Every state change is written to
/// the run record before the event that shows it is emitted (`RunState`).
public final class RunEngine {
    let checkout: SourceCheckout
    let connector: HostConnector
    let inspector: HostInspector
    let plugins: PluginRegistry
    let hosts: [HostConfig]
    let events: EventSink
    let cancellation: CancellationToken
    let store: RunStore?
    /// Host slots and simulators, shared with every other `pipe` process of the coordinator (the run store).
    var leases: HostLeaseStore? { store as? HostLeaseStore }
    let clock: () -> Date
    /// How long a run waits for a free host slot or simulator before giving up (infrastructure).
    public var leaseWaitSeconds: Double = 3600
    /// How long a run whose store went away waits, once it has ended, for the store to take its ending.
    public var storeReturnSeconds: Double = 120
    /// Writes the run's reports when it ends; none without one.
    public var reports: RunReportWriter?

    public init(
        checkout: SourceCheckout, connector: HostConnector, inspector: HostInspector, plugins: PluginRegistry,
        hosts: [HostConfig], events: EventSink, cancellation: CancellationToken, store: RunStore? = nil,
        clock: @escaping () -> Date = Date.init
    ) {
        self.checkout = checkout
        self.connector = connector
        self.inspector = inspector
        self.plugins = plugins
        self.hosts = hosts
        self.events = events
        self.cancellation = cancellation
        self.store = store
        self.clock = clock
    }

    /// The end of a run.
    public struct Result {
        public var runID: String
        public var record: RunRecord
        public var exitCode: PipeExitCode
        public var recordURL: URL
    }

    public func run(_ request: RunRequest) throws -> Result {
        let pipeline = request.pipeline
        let started = clock()
        let artifacts = request.projectDirectory.appendingPathComponent("artifacts", isDirectory: true)
        let (runID, runFolder) =
            try request.runID.map { try Self.claim($0, in: artifacts) }
            ?? RunID.claim(in: artifacts, at: started)
        let journal = RunJournal(
            recordURL: runFolder.appendingPathComponent("summary.json"), runID: runID.value, store: store,
            forward: events, redactor: SecretRedactor(request.secrets))
        let state = RunState(
            runID: runID.value, runFolder: runFolder, projectDirectory: request.projectDirectory, started: started,
            flakyPolicy: pipeline.flakyPolicy, journal: journal,
            record: RunRecord(
                runID: runID.value, pipeline: pipeline.name, pipelineFile: pipeline.sourcePath, status: .running,
                request: .init(
                    pipeline: pipeline.name, ref: pipeline.repository.ref, repository: pipeline.repository.location,
                    workspace: pipeline.repository.workspacePath, parameters: pipeline.parameters,
                    udid: request.udidOverride, host: request.hostOverride, requestedBy: request.requestedBy,
                    reason: request.reason, trigger: request.trigger, onlyLayers: request.onlyLayers,
                    rerunOf: request.rerunOf),
                startedAt: UTCTimestamp.iso8601(started),
                layers: LayerOrder.sorted(pipeline.layers).map {
                    .init(
                        name: $0.name, plugin: $0.plugin, gate: $0.gate, needs: $0.needs, outcome: nil, evidence: [],
                        attempts: [], tests: [])
                }))
        try journal.begin(state.record)
        // A store that stays away cannot record what the run does: the run stops its work and ends interrupted.
        journal.lostStore = { [cancellation, events] reason in
            events.emit(
                .warning(
                    "the run store could not be reached (\(reason)): stopping this run's work on the host; it ends "
                        + "interrupted, and its record stays in \(relativePath(runFolder, to: request.projectDirectory))"
                ))
            cancellation.cancel(reason: "interrupted: the run store could not be reached")
        }
        journal.emit(.runStarted(runID: runID.value, pipeline: pipeline.name, requestedBy: request.requestedBy))
        let watcher = CancellationWatcher(journal: journal, token: cancellation)
        defer { watcher.stop() }

        let localWork = request.projectDirectory.appendingPathComponent(".pipe/work/\(runID.value)", isDirectory: true)
        defer { try? FileManager.default.removeItem(at: localWork) }
        // Host slots and simulators go back however the run ends.
        defer { _ = try? leases?.releaseLeases(runID: runID.value) }
        do {
            try execute(request, state: state, localWork: localWork)
        } catch let error as RequestError {
            try finishEarly(state, outcome: .skipped, problem: error.message, exitCode: .usage)
        } catch let error as ConfigurationError {
            try finishEarly(state, outcome: .hostConfig, problem: error.message, exitCode: .environmentFailure)
        } catch let error as RemoteError {
            try finishEarly(state, outcome: .infrastructure, problem: error.description, exitCode: .environmentFailure)
        } catch let error as CancelledBeforeLayers {
            try finishEarly(state, outcome: .cancelled, problem: error.reason, exitCode: .cancelled)
        } catch {
            try finishEarly(
                state, outcome: .infrastructure, problem: "\(error)", exitCode: .environmentFailure)
        }
        if journal.lostStoreReason != nil {
            let deadline = clock().addingTimeInterval(storeReturnSeconds)
            events.emit(
                journal.recordEndingWhenTheStoreIsBack(state.snapshot, until: deadline)
                    ? .note("the run store is back: run \(runID.value)'s ending is recorded there")
                    : .warning(
                        "the run store is still away: run \(runID.value) stays `running` there until a `pipe` "
                            + "command or a controller finds its coordinator gone"))
        }
        return Result(
            runID: runID.value, record: state.snapshot,
            exitCode: PipeExitCode(rawValue: state.snapshot.exitCode ?? 3)
                ?? .environmentFailure, recordURL: state.recordURL)
    }

    /// Creates the folder of a run id chosen beforehand; refuses an id whose folder exists (another run's).
    private static func claim(_ id: RunID, in artifacts: URL) throws -> (RunID, URL) {
        try FileManager.default.createDirectory(at: artifacts, withIntermediateDirectories: true)
        let folder = artifacts.appendingPathComponent(id.value, isDirectory: true)
        guard mkdir(folder.path, 0o755) == 0 else {
            throw RequestError(
                "the run folder \(folder.path) could not be created (\(String(cString: strerror(errno)))): run id "
                    + "\(id.value) is taken; queue the request again")
        }
        return (id, folder)
    }

    // MARK: - The run's steps

    private func execute(_ request: RunRequest, state: RunState, localWork: URL) throws {
        let pipeline = request.pipeline
        try checkCancelled()

        // 1–2. The checkout, and at the same time a host: its slot leased, its key verified before authentication.
        // Neither needs the other, and a connection (TCP, key exchange, login) costs about what a small checkout does.
        // A host that may not run the commit's code is never chosen (RunEngine+Trust.swift).
        var workspace = URL(fileURLWithPath: "/")
        let (session, candidates) = try checkOutAndConnect(
            request, state: state, into: localWork.appendingPathComponent("checkout", isDirectory: true)
        ) { checkoutResult, code in
            workspace = try CheckedOutWorkspace.locate(
                pipeline.repository.workspacePath, in: checkoutResult.workTree, commit: checkoutResult.commit,
                pipelineFile: pipeline.sourcePath)
            try state.locked {
                state.record.commit = checkoutResult.commit
                state.record.resolvedRef = checkoutResult.resolvedRef
                state.record.code = code
                try state.journal.runChanged(state.record)
            }
            state.journal.emit(
                .checkedOut(
                    ref: pipeline.repository.ref, commit: checkoutResult.commit,
                    workspace: pipeline.repository.workspacePath))
        }
        try announceConnection(session, state: state)
        try checkCancelled()

        // 3–4. Its simulators, a fresh run folder and the workspace.
        let context = LayerRunContext(
            request: request, candidates: candidates, workspace: workspace,
            place: try setUpHost(
                candidates, excluding: [], workspace: workspace, request: request, state: state, connected: session))
        // Cleans up once every layer ended (`runLayers` returns only then), over a place's connection that still
        // works (a layer that lost one reconnected it); then gives the healthy connections back to the connector
        // (the controller keeps them warm for its next run) and closes the rest. Every command of a layer that ended
        // has ended, but a cancelled run may have stopped in the middle of one: it gives nothing back.
        defer {
            let takingBack = cancellation.isCancelled ? nil : connector
            for place in context.places {
                defer { place.release(givingBackTo: takingBack) }
                if let udid = place.createdSimulator {
                    deleteCreatedSimulator(
                        udid, on: place.link.remote, host: place.link.host.name, journal: state.journal)
                }
                cleanUpRemote(place.remoteRunFolder, on: place.links.map(\.remote), journal: state.journal)
                if !cancellation.isCancelled { evictBuildCaches(at: place, journal: state.journal) }
            }
        }

        // 5. Layers: each as soon as the layers it needs have ended, several at a time.
        try runLayers(context: context, state: state)
        try finish(state)
    }

    /// Connects to the best host of `candidates` not in `excluding` (or takes the `connected` session), lists its
    /// simulators and chooses one, creates the run's folder there and brings the workspace: everything a layer needs
    /// from a host.
    ///
    /// The run folder, Xcode's version, the simulator list and the workspace sync are asked for at the same time over
    /// the one connection (`RemoteHost.captureTogether`): set-up costs one wait, not four. A host that cannot run the
    /// request is still a configuration failure found here, before any layer; the run folder made meanwhile is then
    /// removed.
    func setUpHost(
        _ candidates: [HostConfig], excluding: Set<String>, workspace: URL, request: RunRequest,
        state: RunState, connected: Session? = nil
    ) throws -> HostPlace {
        let pipeline = request.pipeline
        let session = try connected ?? connect(candidates.filter { !excluding.contains($0.name) }, state: state)
        try checkCancelled()

        let environment = Self.hostEnvironment(session.host, selection: pipeline.hostSelection)
        let remote = Self.prepared(session.connected.remote, environment: environment)
        // `~/x` in the hosts file means the login's home, which is where relative paths start anyway.
        let workDirectory = session.host.workDirectory
        let runFolder =
            (workDirectory.hasPrefix("~/") ? String(workDirectory.dropFirst(2)) : workDirectory)
            + "/runs/\(state.runID)"
        // A run that builds takes a build cache of its identity, whose tree is synced in place and is the workspace.
        let buildCache = try buildCacheIdentity(request, host: session.host, environment: environment, state: state)
            .flatMap { identity in
                try leaseBuildCache(identity, host: session.host, state: state).map { (identity, $0) }
            }
        let together = remote.captureTogether(
            [
                Self.runFolderCommand(runFolder), inspector.xcodeVersionCommand, inspector.simulatorListCommand,
            ],
            timeoutSeconds: 120,
            syncing: WorkspaceSyncRequest(
                directory: workspace,
                cacheKey: buildCache?.1
                    ?? Self.workspaceCacheKey(pipeline.repository, project: request.projectDirectory),
                remoteDirectory: buildCache == nil ? runFolder + "/workspace" : ""))
        let remoteRunFolder = try readRunFolder(together.outputs[0], folder: runFolder, host: session.host.name)
        try state.locked {
            state.record.remoteRunFolder = remoteRunFolder
            try state.journal.runChanged(state.record)
        }
        var placeReady = false
        defer {
            if !placeReady { cleanUpRemote(remoteRunFolder, on: [remote], journal: state.journal) }
        }
        let xcode = (try? inspector.readXcodeVersion(together.outputs[1].get())).map { version in
            environment["DEVELOPER_DIR"].map { "\(version) at \($0)" } ?? version
        }
        state.locked { state.record.xcode = xcode }
        var simulators = try inspector.readSimulators(together.outputs[2].get(), host: session.host.name)
        state.journal.emit(.simulatorsListed(host: session.host.name, available: simulators.count))
        var criteria = pipeline.simulator
        if let udid = request.udidOverride { criteria.udid = udid }
        let needsSimulator = state.snapshot.layers.contains { plugins.plugin(kind: $0.plugin)?.needsSimulator ?? false }
        var choice: SimulatorChoice?
        var createdSimulator: String?
        // A simulator made here goes when the run ends (with the place, in `execute`), or now when the place could
        // not be set up after all (RunEngine+CreatedSimulator.swift).
        defer {
            if !placeReady, let createdSimulator {
                deleteCreatedSimulator(createdSimulator, on: remote, host: session.host.name, journal: state.journal)
            }
        }
        if needsSimulator {
            do {
                choice = try inspector.choose(
                    criteria, among: simulators, excluding: [],
                    udidSource: request.udidOverrideSource ?? "the pipeline's simulator.udid")
            } catch let nothingMatched as ConfigurationError where criteria.create && criteria.udid == nil {
                // `simulator.create: true`: make one, record it, choose it.
                let created = try createSimulator(
                    criteria, nothingMatched: nothingMatched, on: remote, host: session.host.name, state: state)
                (simulators, choice, createdSimulator) = (created.simulators, created.choice, created.udid)
            }
            try state.locked {
                state.record.simulator = choice
                try state.journal.runChanged(state.record)
            }
            if let choice { state.journal.emit(.simulatorChosen(host: session.host.name, choice: choice)) }
        }
        let upload = try (together.sync ?? .failure(RemoteError(.commandFailed, host: remote.name, "no sync ran")))
            .get()
        state.journal.emit(.workspaceUploaded(host: session.host.name, bytes: upload.bytes, seconds: upload.seconds))
        try checkCancelled()
        placeReady = true
        let link = HostLink(host: session.host, remote: remote, environment: environment)
        let fitting = choice.map { choice in
            SimulatorPool.fitting(
                first: choice.simulator, criteria: criteria, among: simulators, inspector: inspector,
                exact: createdSimulator != nil)
        }
        let cachePlace = buildCache.map { identity, name in
            BuildCachePlace(
                name: name,
                folder: Self.workFolder(ofRunFolder: remoteRunFolder, runID: state.runID) + "/cache/" + name,
                identity: identity, xcodeVersion: try? inspector.readXcodeVersion(together.outputs[1].get()))
        }
        if let cachePlace {
            state.journal.emit(.note("building in build cache \(cachePlace.name) on \(session.host.name)"))
        }
        return HostPlace(
            link: link, remoteRunFolder: remoteRunFolder,
            remoteWorkspace: cachePlace?.tree ?? remoteRunFolder + "/workspace", simulators: simulators,
            criteria: criteria, firstChoice: choice, createdSimulator: createdSimulator,
            pool: SimulatorPool(fitting: fitting ?? []), buildCache: cachePlace)
    }

    /// Makes the run's folder on the host and prints its absolute path: commands run from other folders (the
    /// workspace), so every path Pipe hands to the host must be absolute.
    private static func runFolderCommand(_ folder: String) -> String {
        "mkdir -p \(ShellQuote.quote(folder)) && cd \(ShellQuote.quote(folder)) && pwd"
    }

    /// The absolute path `runFolderCommand` printed, or why the folder could not be made.
    private func readRunFolder(_ result: Swift.Result<CapturedOutput, Error>, folder: String, host: String) throws
        -> String
    {
        let output = try result.get()
        let path = output.stdoutText.trimmingCharacters(in: .whitespacesAndNewlines)
        if output.exit == .exited(0), !path.hasPrefix("/") || path.contains("\n") {
            // `pwd` printed one line; anything else came from the account's shell start-up, before the command.
            throw RemoteError(
                .commandFailed, host: host,
                "the host's login shell printed text of its own before Pipe's command ran ("
                    + "\(DisplayEscaping.escaped(String(path.prefix(80))))): a start-up file of the account, such as "
                    + "~/.zshenv, prints on every login, and a branch's tests may have planted it. Remove what it "
                    + "prints, or give untrusted code a host account of its own (docs/security.md)")
        }
        guard output.exit == .exited(0), path.hasPrefix("/") else {
            let reason = output.stderrText.trimmingCharacters(in: .whitespacesAndNewlines)
            throw RemoteError(
                reason.contains("No space left") ? .diskFull : .commandFailed, host: host,
                "could not create the run folder \(folder) on the host: \(reason); check `work-dir` in the hosts file "
                    + "and the host's free disk space")
        }
        return path
    }

    /// Removes the run's folder over the first of `remotes` (the place's connections, the set-up one first) that
    /// can still do it: the connection a layer lost may be another than the one a layer running beside it kept.
    private func cleanUpRemote(_ folder: String, on remotes: [RemoteHost], journal: RunJournal) {
        // Runs even after Ctrl-C: the remote folder is Pipe's to remove, and the process groups are already gone.
        let removed = remotes.contains { remote in
            (try? remote.capture("rm -rf \(ShellQuote.quote(folder))", timeoutSeconds: 60))?.exit == .exited(0)
        }
        if removed {
            journal.remoteFolderCleaned(at: clock())
        } else {
            journal.emit(.warning("could not remove the run folder \(folder) on the host; `pipe hosts clean` will"))
        }
    }

    // MARK: - Ending

    private func finish(_ state: RunState) throws {
        try state.locked { try finishLocked(state) }
    }

    private func finishLocked(_ state: RunState) throws {
        let outcomes = state.record.layers.compactMap(\.outcome)
        let automated = state.record.layers.filter { $0.gate == .merge }.compactMap(\.outcome)
        let userCancelled = cancellation.isCancelled || outcomes.contains(.cancelled)
        let exitCode = PipeExitCode.mergeVerdict(
            outcomes: automated, flakyPolicy: state.flakyPolicy, userCancelled: userCancelled)
        try complete(state, status: userCancelled ? .cancelled : .finished, exitCode: exitCode)
    }

    private func finishEarly(
        _ state: RunState, outcome: LayerOutcome, problem: String, exitCode: PipeExitCode
    ) throws {
        try state.locked {
            try finishEarlyLocked(state, outcome: outcome, problem: problem, exitCode: exitCode)
        }
    }

    private func finishEarlyLocked(
        _ state: RunState, outcome: LayerOutcome, problem: String, exitCode: PipeExitCode
    ) throws {
        let problem = state.journal.redactor.redact(problem)
        state.record.problem = problem
        for index in state.record.layers.indices where state.record.layers[index].outcome == nil {
            state.record.layers[index].outcome = outcome
            state.record.layers[index].evidence = [problem]
            try state.journal.layerFinished(state.record, layer: state.record.layers[index], at: clock())
        }
        let code: PipeExitCode = cancellation.isCancelled ? .cancelled : exitCode
        try complete(state, status: code == .cancelled ? .cancelled : .finished, exitCode: code)
    }

    private func complete(_ state: RunState, status: RunStatus, exitCode: PipeExitCode) throws {
        var status = status
        var exitCode = exitCode
        if let reason = state.journal.lostStoreReason {
            // Nobody asked for this ending: it is an interruption, not a cancellation.
            status = .interrupted
            exitCode = .environmentFailure
            state.record.problem = state.journal.redactor.redact(
                "the run store could not be reached (\(reason)); the run's work on the host was stopped")
        }
        let finished = clock()
        state.record.status = status
        state.record.exitCode = exitCode.rawValue
        state.record.finishedAt = UTCTimestamp.iso8601(finished)
        state.record.durationSeconds = finished.timeIntervalSince(state.started)
        try state.journal.runChanged(state.record)
        let layers = state.record.layers.map { layer in
            (
                name: layer.name, outcome: layer.outcome,
                artifacts: layer.attempts.flatMap { $0.artifacts.map(\.path) }
            )
        }
        let pending = state.record.layers.filter { $0.outcome == .awaitingSignoff }.map(\.name)
        let reportPaths = writeReports(state)
        state.journal.emit(
            .runFinished(
                summary: RunFinishedSummary(
                    runID: state.runID, status: status, exitCode: exitCode, layers: layers, pendingSignoffs: pending,
                    summaryPath: relativePath(state.recordURL, to: state.projectDirectory),
                    seconds: finished.timeIntervalSince(state.started), problem: state.record.problem,
                    reportPaths: reportPaths)))
    }

    /// The run's reports, recorded as run-level artifacts; a report that cannot be written is a warning, never a
    /// change of the verdict.
    private func writeReports(_ state: RunState) -> [String] {
        guard let reports else { return [] }
        do {
            let urls = try reports.write(
                record: state.record, earlierAttempts: state.earlierAttempts, into: state.runFolder,
                redactor: state.journal.redactor)
            let paths = urls.map { relativePath($0, to: state.projectDirectory) }
            let artifacts = zip(urls, paths).map { url, path in
                ArtifactRecord(
                    kind: .other, path: path,
                    bytes: (try? FileManager.default.attributesOfItem(atPath: url.path)[.size] as? NSNumber)?
                        .int64Value,
                    sha256: try? SHA256Digest.hex(ofFile: url))
            }
            try store?.recordArtifacts(artifacts, runID: state.runID, layer: nil, attempt: nil)
            return paths
        } catch {
            state.journal.emit(.warning("the run's reports could not be written: \(error)"))
            return []
        }
    }

    func checkCancelled() throws {
        if let reason = cancellation.cancellationReason { throw CancelledBeforeLayers(reason: reason) }
    }

    struct CancelledBeforeLayers: Error {
        var reason: String
    }
}
