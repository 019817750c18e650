import Foundation
import PipeBasics
import PipeChatOps
import PipeCore
import PipeForge
import PipeHTTP
import PipeServer
import PipeSpec
import PipeStore

/// `pipe controller`: the scheduled CI controller, a long-running daemon; `--check` validates its config;
/// `pipe controller status` shows what it does.
enum ControllerCommand {
    static let spec = CommandSpec(
        name: "controller",
        summary: "Run pipelines on schedules, on new commits and from the queue (a daemon); or show its status.",
        discussion: """
            Runs in the foreground until SIGTERM or Ctrl-C, logging to stdout like `pipe run` (plain lines, or \
            JSON lines with --json), each line naming its run. The config file (default: controller.yml in the \
            project folder) names schedules (cron expressions, @hourly/@daily/@weekly or `@every 30s`, in a named \
            time zone), watched branches, and limits; see docs/controller.md. Runs come from the schedules, the \
            watches, `pipe enqueue` and chat commands, through the queue in the run store; people's requests go \
            before scheduled ones. Only one controller may run per run store.

            SIGTERM or SIGINT: no new runs; running ones may finish within the grace period, then are cancelled \
            (their remote processes killed, artifacts kept); exit 0. SIGHUP: read the config again; an invalid one \
            is refused and the old one kept. After a crash or kill -9, the next start marks the runs that were \
            running interrupted and queues each again once.

            Examples:
              pipe controller --config controller.yml
              pipe controller --check
              pipe controller status --json
            """,
        arguments: [.optional("action", help: "`status`: show the queue, running runs, schedules, watches and hosts.")],
        options: [
            .value("config", short: "c", valueName: "path", help: "The config file (default: controller.yml)."),
            .flag("check", help: "Validate the config file (every problem with file:line:column) and exit."),
            .value("hosts-file", valueName: "path", help: "The hosts file (default: .pipe/hosts.yml)."),
            .flag("json", help: "JSON lines instead of plain lines (status: one JSON object)."),
            .flag(
                "health",
                help: "status: print nothing; exit 0 when a live controller serves the run store, 1 when none does."),
        ])

    static func execute(_ context: CommandContext) throws -> Int32 {
        switch context.arguments.argument("action") {
        case nil: break
        case "status": return try ControllerStatusCommand.execute(context)
        case let other?:
            var message = "'\(other)' is not an action of `pipe controller`; the only one is `status`"
            if other == "check" { message += " (to validate the config, use --check)" }
            throw UsageError(.custom(message), command: context.arguments.command)
        }
        let project = try context.projectFolder()
        let configURL = configFile(context, project: project)
        var loader = configLoader(context, project: project)
        let sections = ControllerHTTPSections()
        sections.register(on: &loader)
        let config: ControllerConfig
        do {
            config = try sections.load(loader, configURL)
        } catch {
            context.console.err(error.description + "\n")
            context.console.err(
                "error: \(configURL.relativePath) has \(error.problems.count) problem"
                    + "\(error.problems.count == 1 ? "" : "s"); the controller did not start\n")
            return PipeExitCode.usage.rawValue
        }
        if context.arguments.flag("check") {
            return check(config, sections: sections, project: project, context: context)
        }

        let hostsFile =
            context.hostsFile(of: project)
        let location = try StoreLocation.resolve(context, project: project, configured: config.store)
        let store = try location.open(environment: context.environment)
        // Runs an earlier controller left running when it died: their records say interrupted before anything else.
        StoreAccess.settleInterruptedRuns(store, project: project, console: context.console)
        // The runs write through a connection of their own: one connection serializes its callers, and the
        // scheduling passes must not wait behind the events of fifty running runs (WAL lets both read at once).
        let runStore = try location.open(environment: context.environment)
        let output = ControllerOutput(json: context.arguments.flag("json"), write: context.console.out)
        let executor = ControllerRunExecutor(
            project: project, environment: context.environment, hostsFile: hostsFile, store: runStore, output: output,
            sessionIdleSeconds: config.sessionIdleSeconds)
        // However the controller ends, the SSH sessions it keeps for its next runs are closed (with a reason the
        // hosts' logs show) before it exits.
        defer { executor.sessions.closeAll() }
        let controller = Controller(
            config: config, store: store, storePath: location.description, executor: executor, log: output,
            runThreadStore: runStore)
        if store.admitsSeveralControllers { controller.registry = store }
        controller.reloadConfig = {
            executor.forgetParsedFiles()
            return try sections.load(loader, configURL)
        }
        // The web page, once mounted, takes a reloaded `web:` section in place.
        let webPage = WebPageHolder()
        let console = context.console
        controller.reloadApplied = {
            executor.sessions.idleSeconds = $0.sessionIdleSeconds
            for line in webPage.reload(sections.web, from: configURL.relativePath) { console.err(line + "\n") }
        }
        let signals = ControllerSignals(controller: controller)
        defer { withExtendedLifetime(signals) {} }
        do {
            try controller.start()
        } catch let error as ControllerError {
            context.console.err("error: \(error)\n")
            return PipeExitCode.environmentFailure.rawValue
        }
        // The one HTTP listener, with every endpoint the config asks for mounted by path. It starts once this
        // controller holds the store's lock, so a refused second controller never listens.
        let services = ControllerHTTPServices()
        var stopForges: () -> Void = {}
        defer { stopForges() }
        do {
            let forges = try ControllerForges.load(project: project, store: store, environment: context.environment)
            let approver = forges?.chatApprover()
            if let chatopsConfig = sections.chatops {
                let endpoint = try makeChatOps(
                    chatopsConfig, configURL: configURL, project: project, hostsFile: hostsFile, store: store,
                    approver: approver, context: context)
                // Stopped if anything after it fails to start; the approvals it started end before the forges.
                services.mount(try endpoint.mount()) {
                    endpoint.stop()
                    approver?.finish()
                }
                // Refusals that belong to no endpoint go to its audit log, as when it listened alone.
                services.observer = endpoint
            }
            if let forges {
                let console = context.console
                try forges.mount(
                    on: services, repository: { try? executor.repository(ofPipeline: $0) },
                    log: { console.err($0 + "\n") })
                executor.runCheckedOut = { forges.runCheckedOut($0) { console.err($0 + "\n") } }
                executor.runEnded = { forges.runEnded($0) { console.err($0 + "\n") } }
                forges.start { console.err($0 + "\n") }
                stopForges = forges.stop
                context.console.out(
                    "forges: \(forges.forges.forges.map { "\($0.name) at \($0.webhook.path)" }.joined(separator: ", "))\n"
                )
            }
            if let webConfig = sections.web {
                let environment = context.environment
                let web = try WebPageService(webConfig) { config, previous in
                    try WebCommand.makeEndpoint(
                        config, configURL: configURL.standardizedFileURL, project: project, hostsFile: hostsFile,
                        store: store, environment: environment, replacing: previous, log: { console.err($0 + "\n") })
                }
                webPage.page = web
                services.mount(web.endpoint)
                context.console.out("web: the page at \(webConfig.path)\n")
            }
            if let line = try services.listen(sections.listenerConfig, project: project) {
                context.console.out(line + "\n")
            }
        } catch {
            // The config asks for these endpoints: a controller without them would silently drop their requests.
            services.stop()
            context.console.err("error: the HTTP listener did not start: \(error); stopping\n")
            controller.requestStop(reason: "the HTTP listener did not start")
            controller.run()
            return PipeExitCode.environmentFailure.rawValue
        }
        controller.run()
        services.stop()
        return 0
    }

    /// The chat-ops endpoint, with a backend that queues chat requests in the store this controller drains.
    private static func makeChatOps(
        _ config: ChatOpsConfig, configURL: URL, project: ProjectFolder, hostsFile: URL, store: any RelationalRunStore,
        approver: ChatForgeApprover?, context: CommandContext
    ) throws -> ChatOpsEndpoint {
        let (secret, proxySecret) = try ChatOpsSetup.secrets(
            of: config, configURL: configURL, environment: context.environment)
        let console = context.console
        let log: @Sendable (String) -> Void = { console.err($0 + "\n") }
        let auditURL = URL(
            fileURLWithPath: config.auditLog ?? ".pipe/chatops-audit.jsonl", relativeTo: project.url
        ).standardizedFileURL
        let reader = InProcessChatOpsBackend(
            project: project, hostsFile: hostsFile, store: store, environment: context.environment, log: log)
        let backend = QueueChatOpsBackend(
            reader: reader, queue: store, project: project, environment: context.environment, approver: approver)
        let audit = StoreChatAuditLog(
            store: store, copy: try JSONLinesAuditLog(url: auditURL, maxBytes: config.limits.auditLogBytes))
        console.out("chatops: \(config.dialect.rawValue) commands at \(config.path) (audit log \(auditURL.path))\n")
        return ChatOpsEndpoint(
            config: config, secret: secret, proxySecret: proxySecret, backend: backend, audit: audit,
            ledger: store.admitsSeveralControllers ? store : nil, log: log)
    }

    /// `--config`, or controller.yml in the project folder.
    static func configFile(_ context: CommandContext, project: ProjectFolder) -> URL {
        if let path = context.arguments.string("config") {
            return URL(fileURLWithPath: path, relativeTo: context.currentDirectory)
        }
        return URL(fileURLWithPath: "controller.yml", relativeTo: project.url)
    }

    /// The loader, checking pipeline names and that each pipeline loads with the parameters the config gives.
    static func configLoader(_ context: CommandContext, project: ProjectFolder) -> ControllerConfigLoader {
        ControllerConfigLoader(pipelines: project.availablePipelines()) { name, parameters, ref in
            do {
                let file = try project.pipelineFile(for: name, currentDirectory: project.url)
                _ = try project.loadPipeline(file, parameters: parameters, environment: context.environment)
                return nil
            } catch let error as SpecErrors {
                return error.problems.map(\.description).joined(separator: "; ")
            } catch {
                return "\(error)"
            }
        }
    }

    private static func check(
        _ config: ControllerConfig, sections: ControllerHTTPSections, project: ProjectFolder, context: CommandContext
    ) -> Int32 {
        var lines = ["\(config.file) is valid:"]
        let now = Date()
        for schedule in config.schedules {
            let next = schedule.timing.nextFire(after: now).map(UTCTimestamp.iso8601) ?? "never"
            lines.append(
                "  schedule \(schedule.name): \(schedule.pipeline) \(schedule.timing), next \(next), missed: "
                    + schedule.missed.rawValue)
        }
        for watch in config.watches {
            lines.append(
                "  watch \(watch.name): \(watch.pipeline) on \(watch.branches.map(\.pattern).joined(separator: ", ")), "
                    + "every \(Int(watch.intervalSeconds)) s")
        }
        let limits = config.limits
        lines.append(
            "  limits: \(limits.runs.map { "\($0) runs at once" } ?? "as many runs as the hosts take")"
                + (limits.perPipeline.map { ", \($0) per pipeline" } ?? "")
                + limits.pipelines.sorted { $0.key < $1.key }.map { ", \($0.value) of \($0.key)" }.joined()
                + "; grace period \(Int(config.gracePeriodSeconds)) s; "
                + (config.sessionIdleSeconds > 0
                    ? "SSH sessions kept \(Int(config.sessionIdleSeconds)) s for the next run"
                    : "SSH sessions closed after each run"))
        if sections.chatops != nil || sections.web != nil {
            let http = sections.listenerConfig
            let mounted =
                (sections.chatops.map { ["chat-ops at \($0.path)"] } ?? [])
                + (sections.web.map { ["the web page at \($0.path)"] } ?? [])
            let port: UInt16 = if case .tcp(_, let port) = http.listener { port } else { 0 }
            lines.append(
                "  http: listens on \(ControllerHTTPServices.describe(http.listener, port: port)) "
                    + "(\(sections.http == nil && sections.chatops != nil ? "as chatops: says" : "as http: says")): "
                    + mounted.joined(separator: ", ")
                    + (http.baseURL.map { "; public URL \($0)" } ?? ""))
        }
        do {
            let forges = try ForgesConfigLoader(pipelines: project.availablePipelines())
                .load(projectDirectory: project.url)
            for forge in forges?.forges ?? [] {
                let runs = (forge.push.flatMap(\.pipelines) + forge.pullRequests.flatMap(\.pipelines))
                lines.append(
                    "  forge \(forge.name): \(forge.kind.rawValue) \(forge.repository), webhook at \(forge.webhook.path), "
                        + "runs \(Array(Set(runs)).sorted().joined(separator: ", "))")
            }
        } catch {
            context.console.err(error.description + "\n")
            context.console.err("error: forges.yml has problems; the controller would not start\n")
            return PipeExitCode.usage.rawValue
        }
        context.console.out(lines.joined(separator: "\n") + "\n")
        return 0
    }
}
