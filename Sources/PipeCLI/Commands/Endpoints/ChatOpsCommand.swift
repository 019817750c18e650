import Foundation
import PipeChatOps
import PipeCore
import PipeHTTP
import PipeSpec

/// `pipe chatops serve --config chatops.yml`: serves the chat-ops endpoint on its own, driving each queued run in
/// this process (the controller serves the same endpoint from its `chatops:` section with its run queue).
enum ChatOpsCommand {
    static let spec = CommandSpec(
        name: "chatops",
        summary: "Serve the chat-ops endpoint: /pipe slash commands from Slack or Mattermost.",
        discussion: """
            The endpoint verifies each request (Slack's signature and timestamp, or Mattermost's token), applies \
            its limits and the config's authorization, writes every request to the audit log, acknowledges within \
            3 seconds, and posts the run's progress to the request's response_url. See docs/chatops.md.
            """,
        subcommands: [serveSpec])

    static let serveSpec = CommandSpec(
        name: "serve",
        summary: "Listen for slash commands until SIGINT or SIGTERM; runs are driven in this process.",
        discussion: """
            The config file has a `chatops:` section (docs/chatops.md): address, port, path, dialect, where the \
            secret is read (an environment variable or a file, never the file itself), limits and authorization. \
            The first line printed is the address it listens on. SIGINT or SIGTERM stops listening, cancels the \
            runs in progress (their remote processes are stopped, artifacts kept) and exits 0.

            Examples:
              PIPE_SLACK_SIGNING_SECRET=… pipe chatops serve --config .pipe/chatops.yml
              pipe chatops serve --config chatops.yml --port 0      # any free port, printed first
            """,
        options: [
            .value("config", valueName: "path", help: "The file holding the `chatops:` section (required)."),
            .value("port", help: "Listen on this port instead of the config's (0: any free port)."),
            .value("hosts-file", valueName: "path", help: "The hosts file (default: .pipe/hosts.yml)."),
        ])

    static func execute(_ path: [String], _ context: CommandContext) throws -> Int32 {
        guard path.dropFirst().first == "serve" else {
            context.console.err((tool.helpText(for: ["chatops"]) ?? "") + "\n")
            return PipeExitCode.usage.rawValue
        }
        return try serve(context)
    }

    private static var tool: CommandLineTool { PipeCommandLine.tool }

    static func serve(_ context: CommandContext) throws -> Int32 {
        let arguments = context.arguments
        guard let configPath = arguments.string("config") else {
            throw UsageError(
                .custom("--config is required: the file with the `chatops:` section"), command: arguments.command)
        }
        let configURL = URL(fileURLWithPath: configPath, relativeTo: context.currentDirectory).standardizedFileURL
        var config: ChatOpsConfig
        do {
            config = try ChatOpsConfigLoader.load(
                path: URL(fileURLWithPath: configPath, relativeTo: context.currentDirectory))
        } catch {
            context.console.err(error.description + "\n")
            return PipeExitCode.usage.rawValue
        }
        if let port = arguments.string("port") {
            if let socket = config.unixSocket {
                throw UsageError(
                    .custom("--port is not used: \(configPath) sets unix-socket \(socket), the only place it listens"),
                    command: arguments.command)
            }
            guard let value = UInt16(port) else {
                throw UsageError(
                    .invalidValue(option: "--port", value: port, expected: "a port number from 0 to 65535"),
                    command: arguments.command)
            }
            config.port = value
        }
        let (secret, proxySecret) = try requestError {
            try ChatOpsSetup.secrets(of: config, configURL: configURL, environment: context.environment)
        }
        let project = try context.projectFolder()
        config = ChatOpsSetup.resolvingSocket(config, in: project)
        let hostsFile =
            context.hostsFile(of: project)
        let store = try StoreAccess.open(context, project: project)
        let console = context.console
        let log: @Sendable (String) -> Void = { console.err($0 + "\n") }
        let auditURL = URL(
            fileURLWithPath: config.auditLog ?? ".pipe/chatops-audit.jsonl", relativeTo: project.url
        ).standardizedFileURL
        let fileCopy = try requestError { try JSONLinesAuditLog(url: auditURL, maxBytes: config.limits.auditLogBytes) }
        let audit = StoreChatAuditLog(store: store, copy: fileCopy)
        let backend = InProcessChatOpsBackend(
            project: project, hostsFile: hostsFile, store: store, environment: context.environment, log: log)
        let endpoint = ChatOpsEndpoint(
            config: config, secret: secret, proxySecret: proxySecret, backend: backend, audit: audit,
            ledger: store.admitsSeveralControllers ? store : nil, log: log)
        let port = try requestError { try endpoint.start() }
        console.out(
            "chatops: listening on \(ChatOpsSetup.listening(config, port: port)) (\(config.dialect.rawValue))\n")
        console.err("chatops: audit log \(auditURL.path); stop with Ctrl-C or SIGTERM\n")

        StopSignals.wait()
        console.err("chatops: stopping: no new requests; cancelling runs in progress…\n")
        endpoint.stop()
        backend.cancelAll(reason: "cancelled: pipe chatops serve is stopping")
        return 0
    }

    private static func requestError<Value>(_ body: () throws -> Value) throws -> Value {
        do {
            return try body()
        } catch let error as ChatOpsError {
            throw RequestError(error.message)
        } catch let error as HTTPServerError {
            throw RequestError(error.message)
        }
    }
}
