import Foundation
import PipeChatOps
import PipeCore
import PipeHTTP
import PipeSpec
import PipeWeb

/// `pipe web serve --config web.yml`: serves the web page on its own (the controller serves the same page from its
/// config's `web:` section on its one listener); `pipe web users …` manages the page's own sign-in.
enum WebCommand {
    static let spec = CommandSpec(
        name: "web",
        summary: "Serve the web page (runs, a run, logs, checklists and their sign-off) or manage its users.",
        discussion: "See docs/web.md for the `web:` section, deployment behind a reverse proxy and the JSON twins.",
        subcommands: [serveSpec, WebUsersCommand.spec])

    static let serveSpec = CommandSpec(
        name: "serve",
        summary: "Serve the web page until SIGINT or SIGTERM; SIGHUP reads its config again.",
        discussion: """
            The config file has a `web:` section (docs/web.md). The first line printed is the address it \
            listens on. Pages read the run store only; the hosts page never connects to a host.

            SIGHUP reads the config again and applies it in place, keeping sessions; a file that no longer \
            loads is refused (its problems logged) and the old config kept. A new address, port, socket or \
            path needs a restart, and the log says so.

            Examples:
              pipe web serve --config .pipe/web.yml
              pipe web serve --config web.yml --port 0      # any free port, printed first
            """,
        options: [
            .value("config", valueName: "path", help: "The file holding the `web:` section (required)."),
            .value("port", help: "Listen on this port instead of the config's (0: any free port)."),
            .value("hosts-file", valueName: "path", help: "The hosts file (default: .pipe/hosts.yml)."),
        ])

    static func execute(_ path: [String], _ context: CommandContext) throws -> Int32 {
        switch path.dropFirst().first {
        case "serve": return try serve(context)
        case "users": return try WebUsersCommand.execute(path, context)
        default:
            context.console.err((PipeCommandLine.tool.helpText(for: ["web"]) ?? "") + "\n")
            return PipeExitCode.usage.rawValue
        }
    }

    /// The config file named by `--config`, loaded; problems are printed and `nil` returned.
    static func config(_ context: CommandContext) throws -> (WebConfig, URL)? {
        guard let configPath = context.arguments.string("config") else {
            throw UsageError(
                .custom("--config is required: the file with the `web:` section"), command: context.arguments.command)
        }
        let url = URL(fileURLWithPath: configPath, relativeTo: context.currentDirectory)
        do {
            return (try WebConfigLoader.load(path: url), url.standardizedFileURL)
        } catch {
            context.console.err(error.description + "\n")
            return nil
        }
    }

    static func serve(_ context: CommandContext) throws -> Int32 {
        guard let (loaded, configURL) = try config(context) else { return PipeExitCode.usage.rawValue }
        let project = try context.projectFolder()
        let config = try listening(loaded, context, project: project)
        let store = try StoreAccess.open(context, project: project)
        let console = context.console
        let log: @Sendable (String) -> Void = { console.err($0 + "\n") }
        let hostsFile = context.hostsFile(of: project)
        let environment = context.environment
        let page = try WebPageService(config) { config, previous in
            try makeEndpoint(
                config, configURL: configURL, project: project, hostsFile: hostsFile, store: store,
                environment: environment, replacing: previous, log: log)
        }
        let server: HTTPServer
        do {
            server = try HTTPServer(
                listener: config.listener,
                limits: HTTPServerLimits(maxHeaderBytes: 8 * 1024, maxConnectionsPerPeer: 16, headSeconds: 5),
                endpoints: [page.endpoint], observer: page.slot)
        } catch let error as HTTPServerError {
            throw RequestError(error.message)
        }
        console.out(
            "web: listening on \(ControllerHTTPServices.describe(config.listener, port: server.port))\(config.path)\n")
        StopSignals.wait {
            // The file is read again as at start; one that no longer loads leaves the page as it was.
            let fresh: WebConfig
            do {
                fresh = try listening(try WebConfigLoader.load(path: configURL), context, project: project)
            } catch {
                log(
                    "web: SIGHUP: \(configURL.relativePath) is invalid now; keeping the config loaded before. "
                        + "Its problems:\n\(error)")
                return
            }
            for line in page.reload(fresh, from: configURL.relativePath) { log(line) }
        }
        server.stop()
        return 0
    }

    /// `config` with `--port` applied and its Unix socket relative to the project.
    static func listening(_ loaded: WebConfig, _ context: CommandContext, project: ProjectFolder) throws -> WebConfig {
        var config = loaded
        if let port = context.arguments.string("port") {
            guard let value = UInt16(port), case .tcp(let address, _) = config.listener else {
                throw UsageError(
                    .invalidValue(
                        option: "--port", value: port, expected: "a port from 0 to 65535 (not with unix-socket)"),
                    command: context.arguments.command)
            }
            config.listener = .tcp(address: address, port: value)
        }
        if case .unixSocket(let socket) = config.listener {
            config.listener = .unixSocket(
                path: URL(fileURLWithPath: socket, relativeTo: project.url).standardizedFileURL.path)
        }
        return config
    }

    /// The page for a project, as `pipe web serve` and the controller mount it.
    static func makeEndpoint(
        _ config: WebConfig, configURL: URL, project: ProjectFolder, hostsFile: URL, store: RunStore,
        environment: [String: String], replacing previous: WebEndpoint? = nil,
        log: @escaping @Sendable (String) -> Void
    ) throws -> WebEndpoint {
        let folder = configURL.deletingLastPathComponent()
        let proxySecret: String?
        do {
            proxySecret = try config.proxy?.secret.map {
                try ChatOpsSecret.read($0, environment: environment, baseDirectory: folder)
            }
        } catch let error as ChatOpsError {
            throw RequestError("web.proxy.secret: " + error.message)
        }
        let backend = ProjectWebBackend(project: project, hostsFile: hostsFile, store: store, environment: environment)
        return WebEndpoint(
            config: config, store: store, backend: backend,
            usersFile: config.usersFile.map { URL(fileURLWithPath: $0, relativeTo: folder).standardizedFileURL },
            proxySecret: proxySecret, replacing: previous, log: log)
    }
}
