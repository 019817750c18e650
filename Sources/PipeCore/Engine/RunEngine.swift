import Foundation
import PipeBasics

/// Runs one pipeline: checkout → host → simulator → workspace upload → layers (plugins) → verdict.
///
/// Synchronous on the calling thread: an SSH session belongs to one thread, and cancellation arrives through the
/// `CancellationToken` that every wait loop polls. Every state change is written to the run record before the
/// event that shows it is emitted.
public final class RunEngine {
    private let checkout: SourceCheckout
    private let connector: HostConnector
    private let inspector: HostInspector
    private let plugins: PluginRegistry
    private let hosts: [HostConfig]
    private let events: EventSink
    private let cancellation: CancellationToken
    private let store: RunStore?
    /// Host slots and simulators, shared with every other `pipe` process of the coordinator (the run store).
    private var leases: HostLeaseStore? { store as? HostLeaseStore }
    private let clock: () -> Date
    /// How long a run waits for a free host slot or simulator before giving up (infrastructure).
    public var leaseWaitSeconds: Double = 3600
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
        var state = RunState(
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
        journal.emit(.runStarted(runID: runID.value, pipeline: pipeline.name, requestedBy: request.requestedBy))
        let watcher = CancellationWatcher(journal: journal, token: cancellation)
        defer { watcher.stop() }

        let localWork = request.projectDirectory.appendingPathComponent(".pipe/work/\(runID.value)", isDirectory: true)
        defer { try? FileManager.default.removeItem(at: localWork) }
        // Host slots and simulators go back however the run ends.
        defer { _ = try? leases?.releaseLeases(runID: runID.value) }
        do {
            try execute(request, state: &state, localWork: localWork)
        } catch let error as RequestError {
            try finishEarly(&state, outcome: .skipped, problem: error.message, exitCode: .usage)
        } catch let error as ConfigurationError {
            try finishEarly(&state, outcome: .hostConfig, problem: error.message, exitCode: .environmentFailure)
        } catch let error as RemoteError {
            try finishEarly(&state, outcome: .infrastructure, problem: error.description, exitCode: .environmentFailure)
        } catch let error as CancelledBeforeLayers {
            try finishEarly(&state, outcome: .cancelled, problem: error.reason, exitCode: .cancelled)
        } catch {
            try finishEarly(
                &state, outcome: .infrastructure, problem: "\(error)", exitCode: .environmentFailure)
        }
        return Result(
            runID: runID.value, record: state.record,
            exitCode: PipeExitCode(rawValue: state.record.exitCode ?? 3)
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

    private func execute(_ request: RunRequest, state: inout RunState, localWork: URL) throws {
        let pipeline = request.pipeline
        try checkCancelled()

        // 1. Checkout (the engine never reads pipelines or plugins from the checked-out ref).
        let checkoutResult = try checkout.checkout(
            pipeline.repository, projectDirectory: request.projectDirectory,
            into: localWork.appendingPathComponent("checkout", isDirectory: true))
        let workspace = checkoutResult.workTree.appendingPathComponent(pipeline.repository.workspacePath)
        guard FileManager.default.fileExists(atPath: workspace.path) else {
            throw RequestError(
                "the workspace folder '\(pipeline.repository.workspacePath)' does not exist at commit "
                    + "\(checkoutResult.commit.prefix(12)); fix `repository.workspace` in \(pipeline.sourcePath)")
        }
        state.record.commit = checkoutResult.commit
        state.record.resolvedRef = checkoutResult.resolvedRef
        try state.journal.runChanged(state.record)
        state.journal.emit(
            .checkedOut(
                ref: pipeline.repository.ref, commit: checkoutResult.commit,
                workspace: pipeline.repository.workspacePath))
        try checkCancelled()

        // 2. Host: connect (host key verified before authentication), retrying once on another host.
        let candidates = try HostChooser.candidates(
            for: pipeline.hostSelection, override: request.hostOverride, among: hosts)
        let session = try connect(candidates, state: &state)
        try checkCancelled()

        // 3. Xcode and simulators, before anything is uploaded: a host that cannot run the request is a
        //    configuration failure, found early.
        let remote = session.connected.remote
        state.record.xcode = try? inspector.xcodeVersion(on: remote)
        let simulators = try inspector.simulators(on: remote)
        state.journal.emit(.simulatorsListed(host: session.host.name, available: simulators.count))
        var criteria = pipeline.simulator
        if let udid = request.udidOverride { criteria.udid = udid }
        let needsSimulator = state.record.layers.contains { plugins.plugin(kind: $0.plugin)?.needsSimulator ?? false }
        var choice: SimulatorChoice?
        if needsSimulator {
            choice = try inspector.choose(
                criteria, among: simulators, excluding: [],
                udidSource: request.udidOverrideSource ?? "the pipeline's simulator.udid")
            state.record.simulator = choice
            try state.journal.runChanged(state.record)
            if let choice { state.journal.emit(.simulatorChosen(host: session.host.name, choice: choice)) }
        }
        try checkCancelled()

        // 4. A fresh run folder on the host, and the workspace in it.
        let remoteRunFolder = try makeRemoteRunFolder(
            "\(session.host.workDirectory)/runs/\(state.runID)", on: remote, host: session.host.name)
        state.record.remoteRunFolder = remoteRunFolder
        try state.journal.runChanged(state.record)
        let link = HostLink(host: session.host, remote: remote)
        // Cleans up over whatever connection is current then: a layer may have had to reconnect.
        defer { cleanUpRemote(remoteRunFolder, on: link.remote, journal: state.journal) }
        let remoteWorkspace = remoteRunFolder + "/workspace"
        let upload = try remote.syncWorkspace(
            directory: workspace,
            cacheKey: Self.workspaceCacheKey(pipeline.repository, project: request.projectDirectory),
            to: remoteWorkspace)
        state.journal.emit(.workspaceUploaded(host: session.host.name, bytes: upload.bytes, seconds: upload.seconds))

        // 5. Layers, in dependency order.
        let context = LayerRunContext(
            request: request, link: link, remoteRunFolder: remoteRunFolder,
            remoteWorkspace: remoteWorkspace, simulators: simulators, criteria: criteria, firstChoice: choice)
        for index in state.record.layers.indices {
            try runLayer(at: index, context: context, state: &state)
        }
        try finish(&state)
    }

    private struct Session {
        var host: HostConfig
        var connected: ConnectedHost
    }

    /// Leases a slot on the best matching host (capacity and health respected, across processes), then connects.
    ///
    /// Default policy: an infrastructure failure is retried once, on another host where there is one. A host that
    /// cannot be reached or refuses Pipe is recorded unhealthy and leaves rotation until `pipe hosts check` passes.
    private func connect(_ candidates: [HostConfig], state: inout RunState) throws -> Session {
        var lastError: RemoteError?
        var failed: Set<String> = []
        for attempt in 1...2 {
            try checkCancelled()
            let host = try leaseHost(candidates, excluding: candidates.count > 1 ? failed : [], state: &state)
            do {
                let connected = try connector.connect(host, cancellation: cancellation)
                state.record.host = .init(
                    name: host.name, endpoint: host.endpoint, keyType: connected.keyType,
                    fingerprint: connected.fingerprint)
                try state.journal.runChanged(state.record)
                state.journal.emit(
                    .hostConnected(
                        host: host.name, endpoint: host.endpoint, keyType: connected.keyType,
                        fingerprint: connected.fingerprint))
                return Session(host: host, connected: connected)
            } catch let error as RemoteError {
                _ = try? leases?.releaseLeases(runID: state.runID)
                try? leases?.recordHealth(
                    HostHealthRecord(
                        host: host.name, checkedAt: clock(), usable: false, problem: error.message,
                        source: "run \(state.runID)"))
                failed.insert(host.name)
                lastError = error
                // A host key or login problem is not transient: the same host would only refuse again.
                let refusal = [.hostKeyUnknown, .hostKeyChanged, .authentication].contains(error.kind)
                if refusal && candidates.count == 1 { throw error }
                if attempt == 1 { state.journal.emit(.warning("\(error.description); retrying once")) }
            }
        }
        throw lastError ?? RemoteError(.unreachable, host: candidates[0].name, "could not connect")
    }

    /// The host to use: without a store, the first candidate not yet failed; with one, a leased slot, waiting
    /// while every matching host is busy.
    private func leaseHost(_ candidates: [HostConfig], excluding failed: Set<String>, state: inout RunState) throws
        -> HostConfig
    {
        guard let leases else { return candidates.first { !failed.contains($0.name) } ?? candidates[0] }
        let deadline = clock().addingTimeInterval(leaseWaitSeconds)
        var announced = false
        while true {
            switch try leases.leaseBestHost(among: candidates, runID: state.runID, excluding: failed) {
            case .leased(let host, _, let reason):
                if candidates.count > 1 { state.journal.emit(.warning("host \(host.name) chosen: \(reason)")) }
                return host
            case .unavailable(let explanation, let choice):
                let busy = choice.excluded.contains { $0.why == .busy }
                guard busy, clock() < deadline else {
                    throw RemoteError(.unreachable, host: candidates.map(\.name).joined(separator: ", "), explanation)
                }
                if !announced {
                    state.journal.emit(.warning("waiting for a free host slot: \(explanation)"))
                    announced = true
                }
                try pause(seconds: 1)
            }
        }
    }

    /// A simulator this run may use now: the one wanted when no other run holds it, else the next best one that
    /// is free, waiting while every fitting simulator is busy. Without a store, the one wanted.
    private func leaseSimulator(
        _ wanted: Simulator, layer: String, context: LayerRunContext, excluding tried: Set<String>,
        state: inout RunState
    ) throws -> Simulator {
        guard let leases else { return wanted }
        let host = context.hostName
        let deadline = clock().addingTimeInterval(leaseWaitSeconds)
        var candidate = wanted
        var announced = false
        while true {
            let outcome = try leases.leaseSimulator(host: host, udid: candidate.udid, runID: state.runID, layer: layer)
            if outcome.isGranted {
                if candidate.udid != wanted.udid {
                    state.journal.emit(
                        .warning(
                            "\(wanted.summary) is in use (\(outcome.refusal ?? "busy")); using \(candidate.summary)"))
                }
                return candidate
            }
            let heldByOthers = Set(
                try leases.activeLeases(host: host).filter { $0.kind == .simulator && $0.runID != state.runID }
                    .compactMap(\.simulatorUDID))
            if context.criteria.udid == nil,
                let next = try? inspector.choose(
                    context.criteria, among: context.simulators, excluding: heldByOthers.union(tried),
                    udidSource: "the pool")
            {
                candidate = next.simulator
                continue
            }
            guard clock() < deadline else {
                throw RemoteError(
                    .unreachable, host: host, "no fitting simulator came free: \(outcome.refusal ?? "all busy")")
            }
            if !announced {
                state.journal.emit(.warning("waiting for a free simulator: \(outcome.refusal ?? "all busy")"))
                announced = true
            }
            try pause(seconds: 1)
            candidate = wanted
        }
    }

    /// Sleeps, waking early (and throwing) when the run is cancelled.
    private func pause(seconds: Double) throws {
        waitForRetry(seconds: seconds)
        try checkCancelled()
    }

    /// The connection to the run's host; replaced when a layer lost it and is retried.
    private final class HostLink {
        let host: HostConfig
        var remote: RemoteHost

        init(host: HostConfig, remote: RemoteHost) {
            self.host = host
            self.remote = remote
        }
    }

    private struct LayerRunContext {
        var request: RunRequest
        var link: HostLink
        var hostName: String { link.host.name }
        var remoteRunFolder: String
        var remoteWorkspace: String
        var simulators: [Simulator]
        var criteria: SimulatorCriteria
        var firstChoice: SimulatorChoice?
    }

    private func runLayer(at index: Int, context: LayerRunContext, state: inout RunState) throws {
        let layerRecord = state.record.layers[index]
        guard let spec = context.request.pipeline.layer(named: layerRecord.name) else { return }
        if let carried = context.request.carriedOver[spec.name] {
            try endLayer(
                index, outcome: carried.outcome,
                evidence: ["carried over from run \(carried.fromRun) (not run again)"] + carried.evidence,
                state: &state)
            return
        }
        if let only = context.request.onlyLayers, !only.contains(spec.name) {
            // Not run: no outcome, so neither a pass nor a failure; a gate over it cannot be judged.
            state.record.layers[index].evidence = ["not run: not selected by --only \(only.joined(separator: ","))"]
            try state.journal.runChanged(state.record)
            return
        }
        if cancellation.isCancelled {
            try endLayer(
                index, outcome: .cancelled, evidence: [cancellation.cancellationReason ?? "cancelled"], state: &state)
            return
        }
        let unmet = spec.needs.compactMap { need -> String? in
            let outcome = state.record.layers.first { $0.name == need }?.outcome
            return outcome == .passed || outcome == .flaky ? nil : "\(need) (\(outcome?.rawValue ?? "not run"))"
        }
        if !unmet.isEmpty {
            try endLayer(
                index, outcome: .skipped, evidence: ["needs " + unmet.joined(separator: ", ") + ", which did not pass"],
                state: &state)
            return
        }
        guard let pluginType = plugins.plugin(kind: spec.plugin) else {
            try endLayer(
                index, outcome: .pluginError,
                evidence: ["no plugin of kind '\(spec.plugin)'; known kinds: \(plugins.kinds.joined(separator: ", "))"],
                state: &state)
            return
        }
        var simulator = context.firstChoice?.simulator
        var usedSimulators: Set<String> = []
        let policy = spec.retry.applied(to: context.request.pipeline.retry)
        var retriesTaken: [LayerOutcome: Int] = [:]
        var outcomes: [LayerOutcome] = []
        let maximumAttempts = 1 + policy.infrastructure + policy.timedOut + policy.tests
        for attempt in 1...maximumAttempts {
            if pluginType.needsSimulator, let wanted = simulator {
                simulator = try leaseSimulator(
                    wanted, layer: spec.name, context: context, excluding: usedSimulators, state: &state)
            }
            let layerFolder = state.runFolder.appendingPathComponent(
                attempt == 1 ? spec.name : "\(spec.name)/attempt-\(attempt)", isDirectory: true)
            try FileManager.default.createDirectory(at: layerFolder, withIntermediateDirectories: true)
            let attemptStart = clock()
            state.record.layers[index].attempts.append(
                .init(
                    attempt: attempt, outcome: nil, evidence: [], exit: nil,
                    simulatorUDID: pluginType.needsSimulator ? simulator?.udid : nil,
                    startedAt: UTCTimestamp.iso8601(attemptStart), finishedAt: nil, durationSeconds: nil, facts: [:],
                    artifacts: []))
            try state.journal.attemptStarted(
                state.record, layer: spec.name, attempt: state.record.layers[index].attempts[attempt - 1])
            state.journal.emit(.layerStarted(layer: spec.name, attempt: attempt))

            let pluginContext = LayerContext(
                runID: state.runID, pipelineName: context.request.pipeline.name, layer: spec, attempt: attempt,
                host: context.link.remote, hostName: context.hostName,
                simulator: pluginType.needsSimulator ? simulator : nil, remoteRunFolder: context.remoteRunFolder,
                remoteWorkspace: context.remoteWorkspace, localArtifacts: layerFolder,
                projectDirectory: state.projectDirectory, runStartTime: state.started,
                events: state.journal, cancellation: cancellation,
                secrets: context.request.secrets.subset(spec.secrets), redactor: state.journal.redactor)
            var result: LayerResult
            var connectionLost = false
            do {
                result = try pluginType.init().run(pluginContext)
                if case .lost = result.exit { connectionLost = true }
            } catch let error as RemoteError {
                result = LayerResult(outcome: .infrastructure, evidence: [error.description])
                connectionLost = [.connectionLost, .unreachable, .timeout].contains(error.kind)
            } catch let error as ConfigurationError {
                result = LayerResult(outcome: .hostConfig, evidence: [error.message])
            } catch {
                result = LayerResult(outcome: .pluginError, evidence: ["plugin '\(spec.plugin)' failed: \(error)"])
            }
            // A plugin may quote what a test printed: nothing of it may carry a secret into the record.
            result.evidence = state.journal.redactor.redact(result.evidence)
            result.tests = result.tests.map(state.journal.redactor.redact)
            if cancellation.isCancelled && result.outcome != .passed {
                result.outcome = .cancelled
                result.evidence.append(cancellation.cancellationReason ?? "cancelled")
            }
            let finished = clock()
            let attemptIndex = state.record.layers[index].attempts.count - 1
            state.record.layers[index].attempts[attemptIndex].outcome = result.outcome
            state.record.layers[index].attempts[attemptIndex].evidence = result.evidence
            state.record.layers[index].attempts[attemptIndex].exit = result.exit?.artifactText
            state.record.layers[index].attempts[attemptIndex].finishedAt = UTCTimestamp.iso8601(finished)
            state.record.layers[index].attempts[attemptIndex].durationSeconds = finished.timeIntervalSince(
                attemptStart)
            state.record.layers[index].attempts[attemptIndex].facts = result.facts
            state.record.layers[index].attempts[attemptIndex].artifacts = result.artifacts
            if attempt > 1 { state.earlierAttempts[spec.name, default: []] += state.record.layers[index].tests }
            state.record.layers[index].tests = result.tests
            try state.journal.attemptFinished(
                state.record, layer: spec.name, attempt: state.record.layers[index].attempts[attemptIndex],
                tests: result.tests)
            outcomes.append(result.outcome)
            let taken = retriesTaken[result.outcome, default: 0]
            if taken < policy.retries(after: result.outcome), attempt < maximumAttempts, !cancellation.isCancelled {
                retriesTaken[result.outcome] = taken + 1
                // An infrastructure failure or a timeout moves to another simulator where there is one; a test
                // retry keeps the same one, so a pass on retry means the test, not the device, was unsteady.
                if result.outcome != .testsFailed, pluginType.needsSimulator {
                    if let current = simulator?.udid { usedSimulators.insert(current) }
                    if let next = try? inspector.choose(
                        context.criteria, among: context.simulators, excluding: usedSimulators,
                        udidSource: "the retry")
                    {
                        simulator = next.simulator
                    }
                }
                let wait = policy.backoff(beforeRetry: retriesTaken.values.reduce(0, +))
                state.journal.emit(
                    .warning(
                        "layer \(spec.name): \(result.outcome.rawValue) (\(result.evidence.first ?? "no evidence")); "
                            + "retry \(taken + 1) of \(policy.retries(after: result.outcome)) in "
                            + String(format: "%.0f s", wait)))
                waitForRetry(seconds: wait)
                if connectionLost {
                    reconnect(
                        context.link, leftover: result.facts[LayerResult.processGroupFact].flatMap { Int32($0) },
                        journal: state.journal)
                }
                continue
            }
            var finalOutcome = RetryPolicy.finalOutcome(of: outcomes) ?? result.outcome
            if finalOutcome == .flaky, result.tests.isEmpty {
                // A retry that ran no tests proves nothing: the earlier failure stands.
                finalOutcome = .testsFailed
                result.evidence.append("the test retry ran no tests; the failure of an earlier attempt stands")
            } else if finalOutcome == .flaky {
                result.evidence.insert(
                    "flaky: tests failed on an earlier attempt and passed on attempt \(attempt) (retry.tests)", at: 0)
            }
            result.outcome = finalOutcome
            let passedTests = result.tests.filter { $0.status == .passed }.count
            let failedTests = result.tests.filter { $0.status == .failed }.count
            state.record.layers[index].outcome = result.outcome
            state.record.layers[index].evidence = result.evidence
            try state.journal.layerFinished(state.record, layer: state.record.layers[index], at: finished)
            state.journal.emit(
                .layerFinished(
                    layer: spec.name, attempt: attempt,
                    result: LayerResultSummary(
                        outcome: result.outcome, evidence: result.evidence, exitText: result.exit?.artifactText,
                        passedTests: passedTests, failedTests: failedTests,
                        seconds: finished.timeIntervalSince(attemptStart))))
            if !result.artifacts.isEmpty {
                state.journal.emit(.artifactsPulled(layer: spec.name, paths: result.artifacts.map(\.path)))
            }
            return
        }
    }

    /// Names the host-side cache of a workspace: one per repository and workspace folder, so runs of the same
    /// project send only what changed.
    static func workspaceCacheKey(_ repository: RepositorySpec, project: URL) -> String {
        let identity = (repository.location ?? project.standardizedFileURL.path) + "\u{0}" + repository.workspacePath
        return String(SHA256Digest.hex(of: Data(identity.utf8)).prefix(16))
    }

    /// Opens a new connection for the next attempt; when that fails too, the attempt fails as infrastructure.
    /// The process group the lost attempt left running on the host (`leftover`) is killed first: it would
    /// otherwise go on using the simulator the retry may need.
    private func reconnect(_ link: HostLink, leftover: Int32?, journal: RunJournal) {
        do {
            link.remote = try connector.connect(link.host, cancellation: cancellation).remote
            journal.emit(.warning("reconnected to \(link.host.name) after the connection was lost"))
            if let group = leftover, group > 1 {
                _ = try? link.remote.capture("kill -KILL -\(group) 2>/dev/null; true", timeoutSeconds: 30)
            }
        } catch {
            journal.emit(.warning("could not reconnect to \(link.host.name): \(error)"))
        }
    }

    /// Sleeps before a retry, waking early when the run is cancelled.
    private func waitForRetry(seconds: Double) {
        let deadline = Date().addingTimeInterval(seconds)
        while Date() < deadline, !cancellation.isCancelled { Thread.sleep(forTimeInterval: 0.05) }
    }

    private func endLayer(_ index: Int, outcome: LayerOutcome, evidence: [String], state: inout RunState) throws {
        state.record.layers[index].outcome = outcome
        state.record.layers[index].evidence = evidence
        try state.journal.layerFinished(state.record, layer: state.record.layers[index], at: clock())
        state.journal.emit(
            .layerFinished(
                layer: state.record.layers[index].name, attempt: 0,
                result: LayerResultSummary(
                    outcome: outcome, evidence: evidence, exitText: nil, passedTests: 0, failedTests: 0, seconds: 0)))
    }

    /// Creates the run's folder on the host and returns its absolute path: commands run from other folders (the
    /// workspace), so every path Pipe hands to the host must be absolute.
    private func makeRemoteRunFolder(_ folder: String, on remote: RemoteHost, host: String) throws -> String {
        // `~/x` in the hosts file means the login's home, which is where relative paths start anyway.
        let relative = folder.hasPrefix("~/") ? String(folder.dropFirst(2)) : folder
        let output = try remote.capture(
            "mkdir -p \(ShellQuote.quote(relative)) && cd \(ShellQuote.quote(relative)) && pwd", timeoutSeconds: 60)
        let path = output.stdoutText.trimmingCharacters(in: .whitespacesAndNewlines)
        guard output.exit == .exited(0), path.hasPrefix("/") else {
            let reason = output.stderrText.trimmingCharacters(in: .whitespacesAndNewlines)
            throw RemoteError(
                reason.contains("No space left") ? .diskFull : .commandFailed, host: host,
                "could not create the run folder \(folder) on the host: \(reason); check `work-dir` in the hosts file "
                    + "and the host's free disk space")
        }
        return path
    }

    private func cleanUpRemote(_ folder: String, on remote: RemoteHost, journal: RunJournal) {
        // Runs even after Ctrl-C: the remote folder is Pipe's to remove, and the process groups are already gone.
        let result = try? remote.capture("rm -rf \(ShellQuote.quote(folder))", timeoutSeconds: 60)
        if result?.exit == .exited(0) {
            journal.remoteFolderCleaned(at: clock())
        } else {
            journal.emit(.warning("could not remove the run folder \(folder) on the host; `pipe hosts clean` will"))
        }
    }

    // MARK: - Ending

    private func finish(_ state: inout RunState) throws {
        let outcomes = state.record.layers.compactMap(\.outcome)
        let automated = state.record.layers.filter { $0.gate == .merge }.compactMap(\.outcome)
        let userCancelled = cancellation.isCancelled || outcomes.contains(.cancelled)
        let exitCode = PipeExitCode.mergeVerdict(
            outcomes: automated, flakyPolicy: state.flakyPolicy, userCancelled: userCancelled)
        try complete(&state, status: userCancelled ? .cancelled : .finished, exitCode: exitCode)
    }

    private func finishEarly(
        _ state: inout RunState, outcome: LayerOutcome, problem: String, exitCode: PipeExitCode
    ) throws {
        let problem = state.journal.redactor.redact(problem)
        state.record.problem = problem
        for index in state.record.layers.indices where state.record.layers[index].outcome == nil {
            state.record.layers[index].outcome = outcome
            state.record.layers[index].evidence = [problem]
            try state.journal.layerFinished(state.record, layer: state.record.layers[index], at: clock())
        }
        let code: PipeExitCode = cancellation.isCancelled ? .cancelled : exitCode
        try complete(&state, status: code == .cancelled ? .cancelled : .finished, exitCode: code)
    }

    private func complete(_ state: inout RunState, status: RunStatus, exitCode: PipeExitCode) throws {
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

    private func checkCancelled() throws {
        if let reason = cancellation.cancellationReason { throw CancelledBeforeLayers(reason: reason) }
    }

    private struct CancelledBeforeLayers: Error {
        var reason: String
    }
}

/// The mutable state of one run, with the record that is persisted at every change.
private struct RunState {
    var runID: String
    var runFolder: URL
    var projectDirectory: URL
    var started: Date
    var flakyPolicy: FlakyPolicy
    var journal: RunJournal
    var record: RunRecord
    /// Per layer, the tests of attempts before the last one (the record keeps the last attempt's).
    var earlierAttempts: [String: [TestCaseResult]] = [:]

    var recordURL: URL { journal.recordURL }
}
