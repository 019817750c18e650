import Foundation
import PipeCore
import PipeSpec

/// What `pipe run` and `pipe rerun` share: the hosts file, the engine with its parts, Ctrl-C, the live view.
enum RunLauncher {
    /// The hosts file (`--hosts-file` or `.pipe/hosts.yml`); `nil` after printing its problems.
    static func hosts(_ context: CommandContext, project: ProjectFolder) throws -> [HostConfig]? {
        let hostsFile =
            context.arguments.string("hosts-file").map {
                URL(fileURLWithPath: $0, relativeTo: context.currentDirectory).standardizedFileURL
            } ?? project.defaultHostsFile
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

    /// Runs `request` to its end, showing it live; returns `pipe`'s exit code.
    static func launch(_ request: RunRequest, hosts: [HostConfig], store: RunStore, context: CommandContext) throws
        -> Int32
    {
        let cancellation = CancellationToken()
        let signals = SignalCancellation(token: cancellation) { _ in
            context.console.err("\ncancelling: stopping the remote processes and keeping what was brought back…\n")
        }
        defer { withExtendedLifetime(signals) {} }
        let renderer = LiveRenderer(
            style: LiveRenderer.defaultStyle(environment: context.environment),
            verbose: context.arguments.flag("verbose"), write: context.console.out)
        let engine = RunEngine(
            checkout: GitSourceCheckout(cancellation: cancellation),
            connector: SSHHostConnector(environment: context.environment), inspector: AppleHostInspector(),
            plugins: BuiltInPlugins.registry, hosts: hosts, events: renderer, cancellation: cancellation, store: store)
        return try engine.run(request).exitCode.rawValue
    }
}
