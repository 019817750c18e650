import ExternalPlugin
import Foundation
import PipeCore
import PipeReport
import PipeSpec

/// What `pipe run` and `pipe rerun` share: the hosts file, the engine with its parts, Ctrl-C, the live view.
enum RunLauncher {
    /// The hosts file (`--hosts-file` or `.pipe/hosts.yml`); `nil` after printing its problems.
    static func hosts(_ context: CommandContext, project: ProjectFolder) throws -> [HostConfig]? {
        let hostsFile =
            context.hostsFile(of: project)
        guard FileManager.default.fileExists(atPath: hostsFile.path) else {
            throw RequestError(
                "no hosts file at \(hostsFile.path): list your Mac hosts there (see docs/pipeline-format.md), or run "
                    + "`make mac-up` to start the emulated Mac host on this machine and write one")
        }
        do {
            return try HostsFileLoader.load(path: hostsFile, environment: context.environment)
        } catch {
            context.console.err(error.description + "\n")
            return nil
        }
    }

    /// The project file (`project.yml`: `trusted-refs:`), its defaults without one; `nil` after printing its
    /// problems.
    static func projectConfig(_ context: CommandContext, project: ProjectFolder) -> ProjectConfig? {
        do {
            return try ProjectFileLoader.load(projectDirectory: project.url)
        } catch {
            context.console.err(error.description + "\n")
            return nil
        }
    }

    /// The options `pipe run` and `pipe rerun` share about output.
    static let outputOptions: [OptionSpec] = [
        .flag("json", help: "Print one JSON object per event (JSON lines) instead of the live view."),
        .value("junit", valueName: "path", help: "Also write the run's JUnit XML report here."),
        .value("markdown", valueName: "path", help: "Also write the run's Markdown summary here."),
        .flag("verbose", short: "v", help: "Also show the raw output of every layer as it arrives."),
    ]

    /// Runs `request` to its end, showing it live (and posting it to a forge, with `forgeReport`); returns
    /// `pipe`'s exit code.
    static func launch(
        _ request: RunRequest, hosts: [HostConfig], store: RunStore, context: CommandContext,
        forgeReport: ManualForgeReport? = nil
    ) throws -> Int32 {
        let cancellation = CancellationToken()
        let signals = SignalCancellation(token: cancellation) { _ in
            context.console.err("\ncancelling: stopping the remote processes and keeping what was brought back…\n")
        }
        defer { withExtendedLifetime(signals) {} }
        let redactor = SecretRedactor(request.secrets)
        let renderer: EventSink =
            context.arguments.flag("json")
            ? JSONLinesRenderer(redactor: redactor, write: context.console.out)
            : LiveRenderer(
                style: LiveRenderer.defaultStyle(environment: context.environment),
                verbose: context.arguments.flag("verbose"), redactor: redactor, write: context.console.out)
        let events = forgeReport.map { report in ObservingEventSink(renderer) { report.observe($0) } } ?? renderer
        let engine = makeEngine(
            for: request, hosts: hosts, store: store, events: events, cancellation: cancellation,
            environment: context.environment)
        let heartbeat = RunHeartbeat.start(store: store) { reason in cancellation.cancel(reason: reason) }
        defer { heartbeat?.stop() }
        let result = try engine.run(request)
        copyReports(of: result, context: context)
        forgeReport?.finished(result.record)
        if !context.arguments.flag("json") {
            // The verdict of each gate, merge first: pending checklists are listed here, never failed.
            for gate in Gate.allCases {
                let evaluation = GateEvaluation.evaluate(
                    gate, record: result.record, flakyPolicy: request.pipeline.flakyPolicy)
                context.console.out(evaluation.headline + "\n")
            }
        }
        return result.exitCode.rawValue
    }

    /// The engine with Pipe's parts: libgit2 checkout, libssh2 hosts, Apple tools, the plugins the pipeline names,
    /// and the standard reports. `pipe run`, `pipe rerun` and the controller all run requests through it; the
    /// controller passes the `connector` of its warm sessions, the others connect anew for each run.
    static func makeEngine(
        for request: RunRequest, hosts: [HostConfig], store: RunStore, events: EventSink,
        cancellation: CancellationToken, environment: [String: String], connector: HostConnector? = nil
    ) -> RunEngine {
        let engine = RunEngine(
            checkout: GitSourceCheckout(cancellation: cancellation),
            connector: connector ?? SSHHostConnector(environment: environment), inspector: AppleHostInspector(),
            plugins: plugins(for: request, environment: environment), hosts: hosts, events: events,
            cancellation: cancellation, store: store)
        engine.reports = StandardReports(store: store)
        return engine
    }

    /// The built-in plugins, and the external ones the pipeline names (`pipe-layer-<kind>` executables of the
    /// project's `Plugins/` folder or `PATH`; never from the checked-out ref).
    private static func plugins(for request: RunRequest, environment: [String: String]) -> PluginRegistry {
        var registry = BuiltInPlugins.registry
        let catalog = PluginCatalog(projectDirectory: request.projectDirectory, environment: environment)
        for kind in catalog.externalKinds(in: request.pipeline) {
            registry.register(ExternalLayerPlugin.self, as: kind)
        }
        return registry
    }

    /// `--junit PATH` and `--markdown PATH`: copies of the run's own reports where a CI system looks for them.
    private static func copyReports(of result: RunEngine.Result, context: CommandContext) {
        let folder = result.recordURL.deletingLastPathComponent()
        for (option, name) in [("junit", RunReports.FileName.junit), ("markdown", RunReports.FileName.markdown)] {
            guard let path = context.arguments.string(option) else { continue }
            let source = folder.appendingPathComponent(name)
            guard let text = try? String(contentsOf: source, encoding: .utf8) else {
                context.console.err(
                    "warning: no \(name) was written for this run, so --\(option) has nothing to copy\n")
                continue
            }
            let destination = URL(fileURLWithPath: path, relativeTo: context.currentDirectory).standardizedFileURL
            do {
                try FileManager.default.createDirectory(
                    at: destination.deletingLastPathComponent(), withIntermediateDirectories: true)
                try RunReports.writeAtomically(text, to: destination)
            } catch {
                // The verdict stands: the report is still in the run's folder.
                context.console.err(
                    "warning: could not write --\(option) \(destination.path): \(error.localizedDescription); "
                        + "the report is in \(source.path)\n")
            }
        }
    }
}
