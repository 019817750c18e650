import Foundation
import PipeBasics
import PipeCore
import PipeForge
import PipeSpec
import PipeStore

/// `pipe forge …`: the forges of `forges.yml` from the coordinator: send what the outbox holds, check tokens and
/// secrets, list webhook deliveries, approve a fork's pull request.
enum ForgeCommand {
    static let spec = CommandSpec(
        name: "forge",
        summary: "Send forge updates, check forge tokens, list webhook deliveries, approve fork pull requests.",
        discussion: """
            Works with the forges of the project's forges.yml (docs/forges.md) and the run store every `pipe` \
            process shares: the outbox of commit statuses, check runs and comments waiting to go out, and the \
            audit log of webhook deliveries the controller received. Tokens and secrets are read where forges.yml \
            says and never printed.
            """,
        subcommands: [
            ForgeSendCommand.spec, ForgeCheckCommand.spec, ForgeDeliveriesCommand.spec, ForgeApproveCommand.spec,
        ])

    /// Runs `pipe forge <path[1]>`.
    static func execute(_ path: [String], _ context: CommandContext) throws -> Int32 {
        let session: ForgeSession
        do {
            session = try ForgeSession(context)
        } catch let errors as SpecErrors {
            context.console.err(errors.description + "\n")
            return PipeExitCode.usage.rawValue
        }
        switch path.dropFirst().first {
        case "send": return try ForgeSendCommand.execute(session)
        case "check": return try ForgeCheckCommand.execute(session)
        case "deliveries": return try ForgeDeliveriesCommand.execute(session)
        case "approve": return try ForgeApproveCommand.execute(session)
        default:
            context.console.err("error: '\(path.joined(separator: " "))' has no implementation\n")
            return PipeExitCode.usage.rawValue
        }
    }
}

/// What every `pipe forge …` command works with: the project, its `forges.yml`, where secrets are read, the run
/// store and the forges' API over libcurl.
final class ForgeSession {
    let context: CommandContext
    let project: ProjectFolder
    let forges: ForgesConfig
    let secrets: ForgeSecrets
    let transport: ForgeOutboxDelivery.Transport
    /// Each forge's credential: its token, or a GitHub App's installation token.
    let credentials: ForgeCredentials
    private var opened: (any RelationalRunStore)?

    init(_ context: CommandContext, transport: @escaping ForgeOutboxDelivery.Transport = ForgeHTTPTransport.make())
        throws
    {
        self.context = context
        project = try context.projectFolder()
        let loader = ForgesConfigLoader(pipelines: project.availablePipelines())
        guard let forges = try loader.load(projectDirectory: project.url) else {
            throw RequestError(
                "the project \(project.url.path) has no forges.yml; docs/forges.md shows how to write one")
        }
        self.forges = forges
        secrets = ForgeSecrets(environment: context.environment, projectDirectory: project.url)
        self.transport = transport
        credentials = ForgeCredentials(secrets: secrets, transport: transport)
    }

    var arguments: ParsedArguments { context.arguments }
    var console: Console { context.console }

    /// The run store, opened once (after the command checked its options).
    var store: any RelationalRunStore {
        get throws {
            if let opened { return opened }
            let store = try StoreAccess.openWithoutSettling(context, project: project)
            StoreAccess.settleInterruptedRuns(store, project: project, console: console)
            opened = store
            return store
        }
    }

    /// The forge `name` names; an unknown one is a usage error naming the forges there are.
    func forge(_ name: String) throws -> ForgeConfig {
        if let forge = forges.forge(named: name) { return forge }
        let names = forges.forges.map(\.name)
        var message = "forges.yml has no forge '\(name)'"
        if let near = EditDistance.nearest(to: name, in: names) { message += "; did you mean '\(near)'?" }
        throw usage(message + " (its forges: \(names.joined(separator: ", ")))")
    }

    func usage(_ message: String) -> UsageError {
        UsageError(.custom(message), command: arguments.command)
    }

    /// `--limit`: a whole number of 1 or more; `defaultValue` when not given.
    func limit(default defaultValue: Int) throws -> Int {
        guard let text = arguments.string("limit") else { return defaultValue }
        guard let number = Int(text), number >= 1 else {
            throw UsageError(
                .invalidValue(option: "--limit", value: text, expected: "a whole number of 1 or more"),
                command: arguments.command)
        }
        return number
    }

    /// `--json`'s text.
    func json(_ value: Any) throws -> String { try HostsCommand.jsonText(value) }
}
