import Foundation
import PipeCore
import PipeStore

/// `pipe store …`: the run store itself.
enum StoreCommand {
    static let spec = CommandSpec(
        name: "store",
        summary: "Copy a run store, SQLite to PostgreSQL or back.",
        discussion: """
            The run store holds every run, the controller's queue, schedules and watches, host health, the audit \
            log and the forge outbox. It is an SQLite file (.pipe/pipe.db) unless --store, PIPE_STORE or the \
            controller config's `store:` names a postgres:// URL (docs/store.md).
            """,
        subcommands: [StoreMigrateCommand.spec])

    static func execute(_ path: [String], _ context: CommandContext) throws -> Int32 {
        switch path.dropFirst().first {
        case "migrate": return try StoreMigrateCommand.execute(context)
        default:
            context.console.err("error: '\(path.joined(separator: " "))' has no implementation\n")
            return PipeExitCode.usage.rawValue
        }
    }
}

/// `pipe store migrate --to <url or path>`: copies every table of one store into an empty one.
enum StoreMigrateCommand {
    static let spec = CommandSpec(
        name: "migrate",
        summary: "Copy every table of a run store into an empty one, checking the rows table by table.",
        discussion: """
            Copies runs, layers, attempts, test results, artifacts, sign-offs, events, the queue, schedule and \
            watch state, host health, the audit log and the forge tables, from one snapshot of the source, in one \
            transaction of the target: a copy that fails leaves the target as it was. Host leases and the \
            controller lock are left out; they belong to live processes, so stop the controller and let running \
            runs end first. The target must hold no rows yet. A PostgreSQL URL carries no password (use \
            ~/.pgpass or PGPASSWORD).

            Examples:
              pipe store migrate --to postgres://pipe@db.example/pipe?sslmode=verify-full
              pipe store migrate --from .pipe/pipe.db --to postgres://pipe@db.example/pipe
              pipe store migrate --from postgres://pipe@db.example/pipe --to backup.db
            """,
        options: [
            .value(
                "from", valueName: "path-or-url",
                help: "The store to copy (default: the one --store, PIPE_STORE or .pipe/pipe.db names)."),
            .value("to", valueName: "path-or-url", help: "The empty store to copy into (required)."),
        ])

    static func execute(_ context: CommandContext) throws -> Int32 {
        let arguments = context.arguments
        let project = try context.projectFolder()
        guard let toText = arguments.string("to"), !toText.isEmpty else {
            throw UsageError(
                .custom("say where to copy the store: --to postgres://… or --to <path>"), command: arguments.command)
        }
        let from =
            try arguments.string("from").map { try StoreLocation.parse($0, relativeTo: context.currentDirectory) }
            ?? StoreLocation.resolve(context, project: project)
        let to = try StoreLocation.parse(toText, relativeTo: context.currentDirectory)
        guard from != to else {
            throw UsageError(.custom("--from and --to name the same store, \(from)"), command: arguments.command)
        }
        if case .sqlite(let url) = from, !FileManager.default.fileExists(atPath: url.path) {
            throw RequestError("there is no run store at \(url.path) to copy; name it with --from")
        }
        let source = try from.open()
        let target = try to.open()
        let counts = try StoreCopy.copy(from: source, to: target)
        let width = counts.map(\.table.count).max() ?? 0
        for count in counts {
            context.console.out(count.table.padding(toLength: width, withPad: " ", startingAt: 0) + "  \(count.rows)\n")
        }
        context.console.out(
            "copied \(counts.map(\.rows).reduce(0, +)) rows in \(counts.count) tables from \(from) to \(to); "
                + "every table's count matches\n")
        return 0
    }
}
