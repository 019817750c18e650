import Foundation
import PipeBasics
import PipeCore

/// `pipe runs prune`: removes old runs, their records and their `artifacts/<run id>/` folders together.
enum RunsPruneCommand {
    static let spec = CommandSpec(
        name: "prune",
        summary: "Remove old runs: their records and artifacts/<run id>/ folders together.",
        discussion: """
            Chooses runs by --keep (keep the newest N ended runs) and/or --older (started before a time; with \
            both, a run goes only when both allow it), optionally of one pipeline. A run in progress is never \
            removed, nor counted in --keep. The store removes the records first, in short transactions that check \
            again that each run has ended; then each removed run's folder is measured and deleted, and the total \
            freed is printed. Folders on hosts that were never cleaned up are listed for `pipe hosts clean`. \
            --dry-run prints what would go and how much it would free, and changes nothing.

            Examples:
              pipe runs prune --keep 50
              pipe runs prune --older 30d --pipeline app-intents
              pipe runs prune --keep 10 --older 2026-11-01 --dry-run
            """,
        options: [
            .value("keep", valueName: "n", help: "Keep the newest n ended runs (of --pipeline, when given)."),
            .value(
                "older", valueName: "when",
                help: "Remove runs started before this: 2026-11-01, 2026-11-01T00:00:00Z, or an age (30d, 12h)."),
            .value("pipeline", short: "p", help: "Only runs of this pipeline."),
            .flag("dry-run", short: "n", help: "Show what would be removed and freed; remove nothing."),
        ])

    static func execute(_ session: RunsSession) throws -> Int32 {
        let arguments = session.arguments
        var keep: Int?
        if let text = arguments.string("keep") {
            guard let number = Int(text), number >= 0 else {
                throw UsageError(
                    .invalidValue(option: "--keep", value: text, expected: "a number of runs, 0 or more"),
                    command: arguments.command)
            }
            keep = number
        }
        let older = try session.time("older")
        guard keep != nil || older != nil else {
            throw session.usage("say which runs to remove: --keep <n> (keep the newest n) and/or --older <when>")
        }
        let dryRun = arguments.flag("dry-run")
        let policy = PrunePolicy(
            keepLatest: keep, olderThan: older, pipeline: arguments.string("pipeline"), dryRun: dryRun)
        let store = try session.store
        let console = session.console

        let report = try store.prune(policy)
        guard !report.removed.isEmpty else {
            var message = "nothing to prune: no ended run matches"
            if let hint = session.pipelineHint(policy.pipeline) { message += " (\(hint))" }
            console.out(message + "\n")
            return 0
        }
        var freed: Int64 = 0
        var failures: [String] = []
        var rows: [[String]] = []
        for run in report.removed {
            // The folder is measured just before it goes: what was really freed, not what was recorded.
            let folder = session.runFolder(run.runID)
            let exists = RunID(run.runID) != nil && FileManager.default.fileExists(atPath: folder.path)
            let bytes = exists ? RunsArtifactFiles.size(of: folder) : 0
            if exists && !dryRun {
                do {
                    try FileManager.default.removeItem(at: folder)
                } catch {
                    failures.append(
                        "could not delete \(relativePath(folder, to: session.project.url)): \(error.localizedDescription)"
                    )
                    rows.append(row(run, bytes: nil, note: "record removed; folder NOT deleted"))
                    continue
                }
            }
            freed += bytes
            rows.append(row(run, bytes: exists ? bytes : nil, note: exists ? "" : "no folder on disk"))
        }
        let verb = dryRun ? "would remove" : "removed"
        console.out(
            RunsFormatting.table(header: ["RUN", "PIPELINE", "STATUS", "STARTED (UTC)", "FOLDER SIZE", ""], rows: rows))
        let runs = report.removed.count == 1 ? "1 run" : "\(report.removed.count) runs"
        console.out(
            "\(verb) \(runs) (records and artifacts/<run id>/ folders): \(dryRun ? "would free" : "freed") "
                + "\(RunsFormatting.bytes(freed)) (\(freed) bytes)\n")
        let remote = report.removed.compactMap(\.uncleanedRemoteFolder)
        if !remote.isEmpty {
            console.err(
                "note: \(remote.count == 1 ? "this folder" : "these folders") on hosts were never cleaned up; "
                    + "`pipe hosts clean` (or removing them by hand) frees them:\n")
            for folder in remote {
                console.err("  \(folder.hostName ?? "unknown host"): \(folder.remoteRunFolder) (run \(folder.runID))\n")
            }
        }
        for failure in failures { console.err("error: \(failure)\n") }
        return failures.isEmpty ? 0 : PipeExitCode.environmentFailure.rawValue
    }

    private static func row(_ run: PrunedRun, bytes: Int64?, note: String) -> [String] {
        [
            run.runID, run.pipeline, run.status.rawValue, RunsFormatting.time(run.startedAt),
            bytes.map(RunsFormatting.bytes) ?? "-", note,
        ]
    }
}
