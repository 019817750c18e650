import Foundation
import PipeCore

/// `pipe`'s commands: the command tree, and the dispatch from a parsed command line to a command's code.
public enum PipeCommandLine {
    /// `pipe --version`: the version, the commit and the C libraries (`BuildInfo`).
    public static var version: String { BuildInfo.current.text }

    static let root = CommandSpec(
        name: "pipe",
        summary: "Verifies iOS apps on cloud Macs from a Linux coordinator.",
        discussion: """
            Pipe checks a repository out, connects to a Mac host over SSH (its key checked against known_hosts \
            first), chooses a simulator, runs each verification layer of a pipeline there, and brings back the \
            exit code, the full log and the result bundle of every layer into artifacts/<run id>/.
            """,
        options: [
            .value(
                "project-dir", valueName: "path",
                help: "The project folder (default: the nearest folder upwards that holds pipelines/)."),
            .value(
                "store", valueName: "path-or-url",
                help: "The run store: a SQLite file, or a postgres:// URL without a password (default: PIPE_STORE, "
                    + "else .pipe/pipe.db)."),
        ],
        groups: [
            CommandGroup("COMMANDS", [RunCommand.spec, RerunCommand.spec, ValidateCommand.spec, ReportCommand.spec]),
            CommandGroup("RUN HISTORY", [RunsCommand.spec, StoreCommand.spec]),
            CommandGroup(
                "GATES AND SIGN-OFFS", [GateCommand.spec, SignoffCommand.spec, VerifyCommand.spec]),
            CommandGroup("CONTROLLER", [ControllerCommand.spec, EnqueueCommand.spec]),
            CommandGroup("HOSTS", [HostsCommand.spec, SimsCommand.spec]),
            CommandGroup("CHAT", [ChatOpsCommand.spec]),
            CommandGroup("WEB PAGE", [WebCommand.spec]),
            CommandGroup("FORGES", [ForgeCommand.spec]),
            CommandGroup(
                "DOCUMENTATION", [ManCommand.spec, CompletionsCommand.spec, SchemaCommand.spec]),
        ],
        sections: [
            HelpSection(
                title: "EXIT CODES",
                rows: [
                    .init("0", "Every automated layer passed (or was flaky where the pipeline allows it)."),
                    .init(
                        "1",
                        "The app failed: tests or build failed, a layer timed out, or flaky under `flaky: block` "
                            + "(1 wins over 3)."),
                    .init("2", "Invalid usage or an invalid pipeline file; nothing ran."),
                    .init(
                        "3",
                        "Could not judge the app: host configuration (scheme not shared, no such simulator), "
                            + "infrastructure (host unreachable, host key, connection lost) or plugin failure."),
                    .init("130", "Cancelled (Ctrl-C or SIGTERM); wins over every other code."),
                ]),
            HelpSection(
                title: "ENVIRONMENT",
                text: """
                    SIM_UDID names the simulator for every layer, like --udid; it must be one the host has.
                    CI=true prints plain timestamped lines instead of the terminal view.
                    """),
        ])

    static let tool = CommandLineTool(root: root, version: version, versionJSON: BuildInfo.current.json)

    /// Runs `pipe` with `arguments` (without the program name) and returns its exit code.
    public static func main(
        _ arguments: [String], environment: [String: String] = ProcessInfo.processInfo.environment,
        console: Console = .standard
    ) -> Int32 {
        let currentDirectory = URL(fileURLWithPath: FileManager.default.currentDirectoryPath)
        if arguments.first == CompletionsCommand.hiddenCommand {
            return CompletionsCommand.answer(
                Array(arguments.dropFirst()), environment: environment, currentDirectory: currentDirectory,
                console: console)
        }
        switch tool.parse(arguments) {
        case .help(let text), .version(let text):
            console.out(text + "\n")
            return 0
        case .error(let error):
            console.err(error.description + "\n")
            return error.exitCode
        case .run(let path, let parsed):
            let context = CommandContext(
                arguments: parsed, environment: environment, console: console,
                currentDirectory: currentDirectory)
            do {
                switch path {
                case ["run"]: return try RunCommand.execute(context)
                case ["rerun"]: return try RerunCommand.execute(context)
                case ["validate"]: return try ValidateCommand.execute(context)
                case ["report"]: return try ReportCommand.execute(context)
                case ["signoff"]: return try SignoffCommand.execute(context)
                case ["gate"]: return try GateCommand.execute(context)
                case ["verify"]: return try VerifyCommand.execute(context)
                case ["controller"]: return try ControllerCommand.execute(context)
                case ["enqueue"]: return try EnqueueCommand.execute(context)
                case ["man"]: return try ManCommand.execute(context)
                case ["completions"]: return try CompletionsCommand.execute(context)
                case ["schema"]: return try SchemaCommand.execute(context)
                case let runs where runs.first == "runs": return try RunsCommand.execute(runs, context)
                case let hosts where hosts.first == "hosts": return try HostsCommand.execute(hosts, context)
                case let sims where sims.first == "sims": return try SimsCommand.execute(sims, context)
                case let chatops where chatops.first == "chatops": return try ChatOpsCommand.execute(chatops, context)
                case let forge where forge.first == "forge": return try ForgeCommand.execute(forge, context)
                case let web where web.first == "web": return try WebCommand.execute(web, context)
                case let store where store.first == "store": return try StoreCommand.execute(store, context)
                default:
                    console.err("error: '\(path.joined(separator: " "))' has no implementation\n")
                    return PipeExitCode.usage.rawValue
                }
            } catch let error as UsageError {
                console.err(error.description + "\n")
                return error.exitCode
            } catch let error as RequestError {
                console.err("error: \(error.message)\n")
                return PipeExitCode.usage.rawValue
            } catch {
                console.err("error: \(error)\n")
                return PipeExitCode.environmentFailure.rawValue
            }
        }
    }
}

/// What every command gets.
struct CommandContext {
    var arguments: ParsedArguments
    var environment: [String: String]
    var console: Console
    var currentDirectory: URL

    /// `--hosts-file`, else the project's `.pipe/hosts.yml`.
    func hostsFile(of project: ProjectFolder) -> URL {
        arguments.string("hosts-file").map {
            URL(fileURLWithPath: $0, relativeTo: currentDirectory).standardizedFileURL
        } ?? project.defaultHostsFile
    }

    func projectFolder() throws -> ProjectFolder {
        try ProjectFolder.locate(explicit: arguments.string("project-dir"), from: currentDirectory)
    }
}
