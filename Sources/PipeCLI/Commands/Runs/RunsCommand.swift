import Foundation
import PipeCore

/// `pipe runs …`: the run history every `pipe` process shares (the run store), read and tended from any terminal.
enum RunsCommand {
    static let spec = CommandSpec(
        name: "runs",
        summary: "List, inspect, follow, cancel and prune runs; find flaky tests.",
        discussion: """
            Every run, layer, attempt, test result, sign-off, artifact and shown event is recorded in the run \
            store (.pipe/pipe.db, or --store), so these commands work from any terminal, also while runs are in \
            progress in other processes. A run is named by its id (20261129-140312-7f3a), a unique prefix of it \
            (20261129-1403), or `last` (the newest run).

            A run whose `pipe` process died (kill -9, a crash, a reboot) is found by the next command that opens \
            the store: it is marked interrupted, its running layers end cancelled, and what it brought back is kept.
            """,
        subcommands: [
            RunsListCommand.spec, RunsShowCommand.spec, RunsLogsCommand.spec, RunsCancelCommand.spec,
            RunsPruneCommand.spec, RunsFlakyCommand.spec, RunsHistoryCommand.spec,
        ])

    /// Runs `pipe runs <path[1]>`.
    static func execute(_ path: [String], _ context: CommandContext) throws -> Int32 {
        let session = try RunsSession(context)
        switch path.dropFirst().first {
        case "list": return try RunsListCommand.execute(session)
        case "show": return try RunsShowCommand.execute(session)
        case "logs": return try RunsLogsCommand.execute(session)
        case "cancel": return try RunsCancelCommand.execute(session)
        case "prune": return try RunsPruneCommand.execute(session)
        case "flaky": return try RunsFlakyCommand.execute(session)
        case "history": return try RunsHistoryCommand.execute(session)
        default:
            context.console.err("error: '\(path.joined(separator: " "))' has no implementation\n")
            return PipeExitCode.usage.rawValue
        }
    }
}
