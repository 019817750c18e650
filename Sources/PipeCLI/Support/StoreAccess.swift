import Foundation
import PipeCore
import PipeSpec
import PipeStore

/// Opens the project's run store and, first thing, settles runs whose coordinator died.
enum StoreAccess {
    /// The store `StoreLocation` names, with interrupted runs already found and marked. `pipe hosts` commands pass
    /// `stoppingRemoteWork: false`: a dry run must change nothing on a host, and `hosts clean` stops such runs'
    /// processes itself.
    static func open(_ context: CommandContext, project: ProjectFolder, stoppingRemoteWork: Bool = true) throws
        -> any RelationalRunStore
    {
        let store = try openWithoutSettling(context, project: project)
        settleInterruptedRuns(
            store, project: project, console: context.console, stoppingRemoteWork: stoppingRemoteWork)
        return store
    }

    /// The store `StoreLocation` names, as it is (for commands that settle nothing, such as `pipe enqueue`).
    static func openWithoutSettling(_ context: CommandContext, project: ProjectFolder, configured: String? = nil)
        throws -> any RelationalRunStore
    {
        try StoreLocation.resolve(context, project: project, configured: configured).open(
            environment: context.environment)
    }

    /// A run still `running` whose owner process is gone was interrupted (`kill -9`, a crash, a power cut): it is
    /// marked `interrupted`, its running layers end `cancelled`, and its run record on disk says so too.
    /// What such a run still runs on its host is stopped first, so that no slot is given out while it goes on.
    static func settleInterruptedRuns(
        _ store: RunStore, project: ProjectFolder, console: Console,
        stoppingRemoteWork: Bool = true, environment: [String: String] = ProcessInfo.processInfo.environment
    ) {
        if stoppingRemoteWork {
            stopRemoteWorkOfDeadRuns(store, project: project, console: console, environment: environment)
        }
        guard let interrupted = try? store.markInterruptedRuns() else { return }
        for run in interrupted {
            if let stored = try? store.run(run.runID) {
                let recordURL = project.artifactsFolder.appendingPathComponent("\(run.runID)/summary.json")
                if FileManager.default.fileExists(atPath: recordURL.deletingLastPathComponent().path) {
                    try? stored.record.write(to: recordURL)
                }
            }
            var note =
                "note: run \(run.runID) (\(run.pipeline)) was interrupted: its coordinator (pid \(run.owner.pid)) "
                + "died; marked interrupted"
            if !run.cancelledLayers.isEmpty {
                note += ", layers \(run.cancelledLayers.joined(separator: ", ")) cancelled"
            }
            if let folder = run.remoteRunFolder, let host = run.hostName {
                note += "; its folder \(folder) on \(host) is left for `pipe hosts clean`"
            }
            console.err(note + "\n")
        }
    }

    private static func stopRemoteWorkOfDeadRuns(
        _ store: RunStore, project: ProjectFolder, console: Console, environment: [String: String]
    ) {
        let owners = (try? store.runningRunOwners()) ?? []
        for (runID, owner) in owners where owner.liveness() == .dead {
            guard let run = try? store.run(runID), run.record.status == .running,
                let stopped = RunProcessGroups.stopWork(
                    of: run,
                    hosts: { try HostsFileLoader.load(path: project.defaultHostsFile, environment: environment) },
                    environment: environment, store: store)
            else { continue }
            console.err("note: run \(runID): its coordinator (pid \(owner.pid)) died; \(stopped.message)\n")
        }
    }
}
