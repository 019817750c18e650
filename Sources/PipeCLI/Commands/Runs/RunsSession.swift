import Foundation
import PipeBasics
import PipeCore
import PipeStore

/// What every `pipe runs …` command works with: the command line, the project folder and its run store.
///
/// The store is opened on first use (which also settles interrupted runs), after a command has checked its
/// options: a mistyped option changes nothing.
final class RunsSession {
    let context: CommandContext
    let project: ProjectFolder
    private var opened: RunStore?

    init(_ context: CommandContext) throws {
        self.context = context
        project = try context.projectFolder()
    }

    /// The run store, opened once.
    var store: RunStore {
        get throws {
            if let opened { return opened }
            let store = try StoreAccess.open(context, project: project)
            opened = store
            return store
        }
    }

    var arguments: ParsedArguments { context.arguments }
    var console: Console { context.console }

    /// A full id, a unique prefix or `last` → the run's id; an unknown or ambiguous one is a request error
    /// (exit 2) with `RunIDLookupError`'s message.
    func resolve(_ typed: String) throws -> String {
        do {
            return try store.resolveRunID(typed)
        } catch let error as RunIDLookupError {
            throw RequestError(error.description)
        }
    }

    /// The run `typed` names, in full.
    func run(_ typed: String) throws -> StoredRun {
        let runID = try resolve(typed)
        guard let run = try store.run(runID) else {
            // Removed (pruned) between the lookup and the read.
            throw RequestError("run \(runID) is no longer in the run store; `pipe runs list` shows the runs")
        }
        return run
    }

    /// The `<run>` argument, resolved.
    func runArgument() throws -> StoredRun {
        try run(arguments.argument("run") ?? "last")
    }

    /// A usage error of this command.
    func usage(_ message: String) -> UsageError {
        UsageError(.custom(message), command: arguments.command)
    }

    /// `--since`/`--older` and friends, parsed.
    func time(_ option: String, now: Date = Date()) throws -> Date? {
        guard let text = arguments.string(option) else { return nil }
        return try RunsTimeExpression.parse(text, option: "--" + option, command: arguments.command, now: now)
    }

    /// `--limit`: a whole number of 1 or more, or `all`; `defaultValue` when not given.
    func limit(default defaultValue: Int?) throws -> Int? {
        guard let text = arguments.string("limit") else { return defaultValue }
        if text == "all" { return nil }
        guard let number = Int(text), number >= 1 else {
            throw UsageError(
                .invalidValue(option: "--limit", value: text, expected: "a whole number of 1 or more, or `all`"),
                command: arguments.command)
        }
        return number
    }

    /// The folder `artifacts/<run id>/` of a run.
    func runFolder(_ runID: String) -> URL {
        project.artifactsFolder.appendingPathComponent(runID, isDirectory: true)
    }

    /// A path relative to the project folder (as artifacts are recorded) as a URL.
    func projectURL(_ relativePath: String) -> URL {
        relativePath.hasPrefix("/")
            ? URL(fileURLWithPath: relativePath) : project.url.appendingPathComponent(relativePath)
    }

    /// When `--pipeline` names no pipeline of the project nor any run, a hint for the empty result.
    func pipelineHint(_ pipeline: String?) -> String? {
        guard let pipeline else { return nil }
        let known = Set(project.availablePipelines()).union(
            ((try? store.listRuns(RunFilter(limit: 200))) ?? []).map(\.pipeline))
        guard !known.contains(pipeline) else { return nil }
        var hint = "no pipeline is called '\(pipeline)'"
        if let near = EditDistance.nearest(to: pipeline, in: known.sorted()) { hint += "; did you mean '\(near)'?" }
        return hint
    }
}
