import Foundation
import PipeBasics
import PipeCore
import PipeReport
import PipeServer
import PipeSpec

/// Runs the controller's queued requests the way `pipe run` runs a pipeline: the pipeline loaded by name from the
/// project folder with the request's parameters and ref, its secrets read from this process's environment, the
/// hosts file, and a `RunEngine` with the same adapters (libgit2 checkout, libssh2 hosts, the Apple tools'
/// inspector), showing the run's events through the controller's output.
///
/// The pipelines and the hosts file are parsed once and kept until their file changes (`ParsedFileCache`): the
/// controller asks for them on every scheduling pass and for every run it starts. `forgetParsedFiles()` (SIGHUP)
/// reads them again, and with them the external plugins' settings.
///
/// Unlike `pipe run`, the runs connect through `sessions`: an SSH session a run ends with stays logged in for the
/// next run to the same host, for `session-idle`.
final class ControllerRunExecutor: QueuedRunExecutor, @unchecked Sendable {
    private let project: ProjectFolder
    private let environment: [String: String]
    private let hostsFile: URL
    private let store: RunStore
    private let output: ControllerOutput
    let sessions: WarmSessionPool
    /// Pipelines by file and parameters, before the request's ref is applied.
    let pipelines = ParsedFileCache<Pipeline>()
    /// The hosts file.
    let hostsFiles = ParsedFileCache<[HostConfig]>()
    /// Told of every run once its commit is known, and once it has ended (the forges' statuses), on the run's
    /// thread.
    var runCheckedOut: ((String) -> Void)?
    var runEnded: ((String) -> Void)?

    init(
        project: ProjectFolder, environment: [String: String], hostsFile: URL, store: RunStore,
        output: ControllerOutput, sessionIdleSeconds: Double
    ) {
        self.project = project
        self.environment = environment
        self.hostsFile = hostsFile
        self.store = store
        self.output = output
        sessions = WarmSessionPool(environment: environment, idleSeconds: sessionIdleSeconds)
    }

    func prepare(_ item: QueuedRun) throws -> RunRequest {
        var pipeline = try loadPipeline(
            item.request.pipeline, parameters: item.request.parameters, ref: item.request.ref)
        if let forge = item.request.forge {
            // The exact head the event named, fetched by its pull request's own ref (a fork's is on no branch).
            pipeline.repository.ref = forge.headSHA
            if forge.event != .push { pipeline.repository.fetchRef = forge.fetchRef }
        }
        let withheld = item.request.forge.flatMap { forge in
            forge.secretsWithheld
                ? "a pull request from the fork \(forge.fork ?? "?") gets no secrets (forks: without-secrets)" : nil
        }
        // Withheld secrets are never read, so a fork's run cannot reach them even through a bug further on.
        let secrets =
            withheld != nil
            ? SecretValues()
            : try SecretValues.resolve(pipeline.secrets, environment: environment, projectDirectory: project.url)
        guard let runID = RunID(item.runID) else {
            throw RequestError("the queue gave '\(item.runID)', which is not a run id")
        }
        var request = RunRequest(
            pipeline: pipeline, projectDirectory: project.url, requestedBy: item.request.requestedBy,
            reason: item.request.reason, trigger: item.request.source.rawValue, rerunOf: item.request.rerunOf,
            secrets: secrets, runID: runID, trustedRefs: try loadProjectConfig().trustedRefs,
            codeOrigin: Self.codeOrigin(of: item.request))
        request.secretsWithheld = withheld
        return request
    }

    /// A fork's pull request is code from outside the project, whatever its branch is called.
    static func codeOrigin(of request: QueueRequest) -> CodeOrigin {
        guard let forge = request.forge, let fork = forge.fork else { return .project }
        return .outside("the fork \(fork) of \(forge.repository) (pull request #\(forge.number ?? 0))")
    }

    /// The hosts the run may use, as far as its code's level is known before its checkout (`HostTrustCheck`).
    func hosts(for item: QueuedRun) throws -> [HostConfig] {
        let pipeline = try loadPipeline(item.request.pipeline, parameters: item.request.parameters, ref: nil)
        let hosts = try loadHosts()
        let chosen = try SigningHostRule.restrict(
            try HostChooser.candidates(for: pipeline.hostSelection, override: nil, among: hosts), for: pipeline,
            hosts: hosts)
        let trustedRefs = (try? loadProjectConfig().trustedRefs) ?? []
        let origin = Self.codeOrigin(of: item.request)
        return HostTrustCheck.plausible(
            chosen, origin: origin == .project ? pipeline.repository.origin : origin, trustedRefs: trustedRefs)
    }

    /// The project file (`project.yml`); a broken one fails the run that needs it, with its problems.
    private func loadProjectConfig() throws -> ProjectConfig {
        do {
            return try ProjectFileLoader.load(projectDirectory: project.url)
        } catch {
            throw RequestError(error.description)
        }
    }

    func repository(for watch: WatchConfig) throws -> String {
        try repository(ofPipeline: watch.pipeline, parameters: watch.parameters)
    }

    /// Where a pipeline's checkout fetches from: its `repository.location`, or the project folder's own repository.
    func repository(ofPipeline name: String, parameters: [String: String] = [:]) throws -> String {
        let pipeline = try loadPipeline(name, parameters: parameters, ref: nil)
        guard let location = pipeline.repository.location else { return project.url.path }
        // A relative path is relative to the project folder, as for the checkout; URLs and `host:path` stay.
        let colon = location.firstIndex(of: ":")
        let slash = location.firstIndex(of: "/")
        let isAddress = location.contains("://") || (colon != nil && (slash == nil || colon! < slash!))
        if isAddress || location.hasPrefix("/") { return location }
        return project.url.appendingPathComponent(location).standardizedFileURL.path
    }

    func execute(_ request: RunRequest, runID: String, cancellation: CancellationToken) -> ExecutedRun {
        let hosts: [HostConfig]
        do {
            hosts = try loadHosts()
        } catch {
            return ExecutedRun(status: nil, exitCode: nil, problem: "\(error)")
        }
        let renderer = output.renderer(runID: runID, redactor: SecretRedactor(request.secrets))
        let checkedOut = runCheckedOut
        let events = SerializedEventSink(
            ObservingEventSink(renderer) { event in
                if case .checkedOut = event { checkedOut?(runID) }
            })
        let engine = RunLauncher.makeEngine(
            for: request, hosts: hosts, store: store, events: events, cancellation: cancellation,
            environment: environment, connector: sessions.connector(events: events))
        defer { runEnded?(runID) }
        do {
            let result = try engine.run(request)
            return ExecutedRun(
                status: result.record.status, exitCode: result.exitCode.rawValue, problem: result.record.problem)
        } catch {
            // The engine throws only when it cannot record the run; what the store has is the truth.
            let status = (try? store.run(runID))?.record.status
            return ExecutedRun(status: status, exitCode: nil, problem: "\(error)")
        }
    }

    func stopRemoteWork(of run: StoredRun) -> (message: String, isProblem: Bool)? {
        RunProcessGroups.stopWork(of: run, hosts: loadHosts, environment: environment, store: store)
    }

    /// Forgets the parsed pipelines and hosts file, so that the next use reads them again.
    func forgetParsedFiles() {
        pipelines.removeAll()
        hostsFiles.removeAll()
    }

    /// A pipeline of the project folder by name, with parameters and ref, checked as `pipe run` checks it.
    func loadPipeline(_ name: String, parameters: [String: String], ref: String?) throws -> Pipeline {
        let file = try project.pipelineFile(for: name, currentDirectory: project.url)
        let key = ([file.path] + parameters.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" })
            .joined(separator: "\u{0}")
        var pipeline = try pipelines.value(for: key, files: [file]) {
            try project.loadPipeline(file, parameters: parameters, environment: environment)
        }
        if let ref { pipeline.repository.ref = ref }
        return pipeline
    }

    /// The hosts file; its problems are `HostsUnavailable`, which keep queued runs waiting rather than failing them.
    private func loadHosts() throws -> [HostConfig] {
        guard FileManager.default.fileExists(atPath: hostsFile.path) else {
            throw HostsUnavailable(
                "no hosts file at \(hostsFile.path): list your Mac hosts there (see docs/pipeline-format.md)")
        }
        do {
            return try hostsFiles.value(for: hostsFile.path, files: [hostsFile]) {
                try HostsFileLoader.load(path: hostsFile, environment: environment)
            }
        } catch {
            throw HostsUnavailable("the hosts file \(hostsFile.path) is invalid:\n\(error)")
        }
    }
}
