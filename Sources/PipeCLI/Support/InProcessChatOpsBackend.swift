import ChecklistPlugin
import Foundation
import PipeBasics
import PipeChatOps
import PipeCore
import PipeSpec

/// The backend of `pipe chatops serve`: each queued run is driven in this process, on a thread of its own, exactly
/// as `pipe run` drives one (the same pipeline loading, `RunRequest`, engine and run store).
final class InProcessChatOpsBackend: ChatOpsBackend, @unchecked Sendable {
    private let project: ProjectFolder
    private let hostsFile: URL
    private let store: RunStore
    private let environment: [String: String]
    private let log: @Sendable (String) -> Void
    private let lock = NSLock()
    private var active: [String: CancellationToken] = [:]
    private let running = DispatchGroup()

    init(
        project: ProjectFolder, hostsFile: URL, store: RunStore, environment: [String: String],
        log: @escaping @Sendable (String) -> Void
    ) {
        self.project = project
        self.hostsFile = hostsFile
        self.store = store
        self.environment = environment
        self.log = log
    }

    /// Cancels every run in progress and waits until each has stopped its remote processes and ended.
    func cancelAll(reason: String) {
        lock.lock()
        let tokens = Array(active.values)
        lock.unlock()
        for token in tokens { token.cancel(reason: reason) }
        running.wait()
    }

    // MARK: - ChatOpsBackend

    func pipelineNames() throws -> [String] { project.availablePipelines() }

    func enqueue(_ chat: ChatRunRequest) throws -> ChatQueuedRun {
        // A name, never a path: the chat chooses among the project's pipelines only.
        guard project.availablePipelines().contains(chat.pipeline) else {
            throw ChatOpsBackendError("no pipeline '\(chat.pipeline)' in pipelines/")
        }
        let file = try project.pipelineFile(for: chat.pipeline, currentDirectory: project.url)
        var parameters: [String: String] = [:]
        for pair in chat.parameters { parameters[pair.key] = pair.value }
        var pipeline: Pipeline
        do {
            pipeline = try project.loadPipeline(file, parameters: parameters, environment: environment)
        } catch {
            throw ChatOpsBackendError(error.description)
        }
        if let ref = chat.ref { pipeline.repository.ref = ref }
        let secrets = try Self.userFacing {
            try SecretValues.resolve(pipeline.secrets, environment: environment, projectDirectory: project.url)
        }
        let hosts: [HostConfig]
        do {
            hosts = try HostsFileLoader.load(path: hostsFile, environment: environment)
        } catch {
            throw ChatOpsBackendError("the hosts file is not valid: \(error.description)")
        }
        let projectConfig: ProjectConfig
        do {
            projectConfig = try ProjectFileLoader.load(projectDirectory: project.url)
        } catch {
            throw ChatOpsBackendError("the project file is not valid: \(error.description)")
        }
        let request = RunRequest(
            pipeline: pipeline, projectDirectory: project.url, requestedBy: chat.requestedBy, reason: chat.reason,
            trigger: "chat", secrets: secrets, trustedRefs: projectConfig.trustedRefs)
        let token = CancellationToken()
        let started = RunStartSink(log: log)
        let engine = RunLauncher.makeEngine(
            for: request, hosts: hosts, store: store, events: started, cancellation: token, environment: environment)
        running.enter()
        let thread = Thread { [self] in
            defer { running.leave() }
            do {
                let result = try engine.run(request)
                log("chatops: run \(result.runID) ended: exit \(result.exitCode.rawValue)")
            } catch {
                started.failed(error)
                log("chatops: a run of \(chat.pipeline) could not be recorded: \(error)")
            }
            if let runID = started.runID {
                lock.lock()
                active[runID] = nil
                lock.unlock()
            }
        }
        thread.name = "pipe-chatops-run"
        thread.start()
        // The engine claims the run id and records the run before it touches the network: this is quick.
        let runID: String
        do {
            runID = try started.waitForRunID(seconds: 2)
        } catch {
            // The chat is told it was not queued, so it must not run later behind the person's back.
            token.cancel(reason: "cancelled: it was not recorded within 2 s, and the chat was told so")
            throw error
        }
        lock.lock()
        active[runID] = token
        lock.unlock()
        return ChatQueuedRun(runID: runID, pipeline: pipeline.name, ref: pipeline.repository.ref)
    }

    func resolveRun(_ typed: String?) throws -> String {
        try Self.userFacing { try store.resolveRunID(typed ?? "last") }
    }

    func record(run runID: String) throws -> RunRecord? { try store.run(runID)?.record }

    func runs(pipeline: String?, limit: Int) throws -> [RunSummary] {
        try store.listRuns(RunFilter(pipeline: pipeline, limit: limit))
    }

    /// Checked and recorded exactly as `pipe signoff` does: the checklist's required fields, append-only, with
    /// the run's files rewritten; a refusal records nothing.
    func signoff(_ request: ChatSignoffRequest) throws -> ChatSignoffReceipt {
        guard let run = try store.run(request.runID) else { throw ChatOpsBackendError("no run \(request.runID)") }
        let recorder = SignoffRecorder(project: project, store: store, environment: environment)
        let result: SignoffResult = request.verdict == .pass ? .pass : .fail
        let fields = request.fields.map { (key: $0.key, value: $0.value) }
        let checked: SignoffRecorder.CheckedSignoff
        do {
            checked = try recorder.check(run: run, layer: request.layer, result: result, fields: fields)
        } catch {
            throw ChatOpsBackendError(error.description + "; nothing was recorded")
        }
        let (recorded, updated) = try recorder.record(
            run: run, layer: request.layer, result: result, checked: checked, fieldOrder: fields.map(\.key),
            signer: request.signedBy, note: request.note)
        if let problem = recorder.forgeProblem { log("chatops: run \(request.runID): \(problem)") }
        let release = Self.evaluate(.release, record: updated.record, signoffs: updated.signoffs)
        return ChatSignoffReceipt(
            signoffID: recorded.id, runID: request.runID, layer: request.layer, verdict: request.verdict,
            signedBy: request.signedBy, releaseGate: release.headline)
    }

    func gate(run runID: String, gate: Gate) throws -> ChatGateReport {
        guard let run = try store.run(runID) else { throw ChatOpsBackendError("no run \(runID)") }
        return Self.evaluate(gate, record: run.record, signoffs: run.signoffs)
    }

    /// Approvals queue the fork's runs for a controller, which this process is not.
    func approve(_ request: ChatApprovalRequest, finished: @escaping @Sendable (String) -> Void) throws -> String {
        throw ChatOpsBackendError(
            "approvals are served by `pipe controller` (its chatops: section), which runs what they queue; "
                + "`pipe forge approve` approves on the coordinator")
    }

    func hosts() throws -> [ChatHostReport] {
        try Self.hostReports(hostsFile: hostsFile, store: store, environment: environment)
    }

    /// The hosts of the hosts file with what the store knows of them (leases, the last health check); no SSH.
    static func hostReports(hostsFile: URL, store: RunStore, environment: [String: String]) throws -> [ChatHostReport] {
        let hosts: [HostConfig]
        do {
            hosts = try HostsFileLoader.load(path: hostsFile, environment: environment)
        } catch {
            throw ChatOpsBackendError("the hosts file is not valid: \(error.description)")
        }
        let leases = (store as? HostLeaseStore).flatMap { try? $0.activeLeases(host: nil) } ?? []
        let health = (store as? HostLeaseStore).flatMap { try? $0.hostHealth(hosts.map(\.name)) } ?? []
        return hosts.map { host in
            let latest = health.first { $0.host == host.name }?.latest
            return ChatHostReport(
                name: host.name, endpoint: host.endpoint, capacity: host.capacity,
                busy: leases.filter { $0.host == host.name && $0.kind == .hostSlot }.count, usable: latest?.usable,
                problem: latest?.problem, checkedAt: latest?.checkedAt)
        }
    }

    // MARK: - Helpers

    /// The gate as `pipe gate` judges it (`GateEvaluation`), with each layer's latest sign-off applied.
    static func evaluate(_ gate: Gate, record: RunRecord, signoffs: [Signoff]) -> ChatGateReport {
        var record = record
        for index in record.layers.indices {
            if let latest = signoffs.last(where: { $0.layer == record.layers[index].name }) {
                record.layers[index].outcome = latest.decision.outcome
            }
        }
        let evaluation = GateEvaluation.evaluate(gate, record: record)
        let verdict: ChatGateReport.Verdict
        switch evaluation.verdict {
        case .passed: verdict = .passed
        case .failed: verdict = .failed
        case .couldNotJudge: verdict = .couldNotJudge
        case .pendingSignoff: verdict = .pendingSignoff
        }
        return ChatGateReport(
            runID: record.runID, pipeline: record.pipeline, gate: gate, verdict: verdict,
            headline: evaluation.headline,
            layers: evaluation.layers.map {
                .init(name: $0.name, gate: $0.gate, outcome: $0.outcome, reason: $0.reason)
            })
    }

    /// Errors a person fixes (a missing secret, an unknown run) become messages for the chat.
    private static func userFacing<Value>(_ body: () throws -> Value) throws -> Value {
        do {
            return try body()
        } catch let error as RequestError {
            throw ChatOpsBackendError(error.message)
        } catch let error as RunIDLookupError {
            throw ChatOpsBackendError(error.description)
        } catch let error as PipeBasicsError {
            throw ChatOpsBackendError(error.description)
        }
    }
}

/// Catches the run id as soon as the engine has recorded the run, and notes its end in the server's log.
private final class RunStartSink: EventSink, @unchecked Sendable {
    private let lock = NSLock()
    private let ready = DispatchSemaphore(value: 0)
    private var id: String?
    private var failure: Error?
    private let log: @Sendable (String) -> Void

    init(log: @escaping @Sendable (String) -> Void) { self.log = log }

    var runID: String? {
        lock.lock()
        defer { lock.unlock() }
        return id
    }

    func emit(_ event: RunEvent) {
        switch event {
        case .runStarted(let runID, let pipeline, let requestedBy):
            lock.lock()
            id = runID
            lock.unlock()
            ready.signal()
            log("chatops: run \(runID) of \(pipeline) started for \(requestedBy)")
        case .warning(let text):
            log("chatops: \(runID ?? "run"): \(text)")
        default:
            break
        }
    }

    func failed(_ error: Error) {
        lock.lock()
        failure = error
        lock.unlock()
        ready.signal()
    }

    func waitForRunID(seconds: Double) throws -> String {
        _ = ready.wait(timeout: .now() + seconds)
        lock.lock()
        defer { lock.unlock() }
        if let id { return id }
        throw ChatOpsBackendError(
            "the run could not be queued: "
                + (failure.map { "\($0)" } ?? "it was not recorded within \(Int(seconds)) s"))
    }
}
