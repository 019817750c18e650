import Foundation
import PipeCore
import PipeStore

/// Opens the project's run store and, first thing, settles runs whose coordinator died.
enum StoreAccess {
    /// The store `StoreLocation` names, with interrupted runs already found and marked.
    static func open(_ context: CommandContext, project: ProjectFolder) throws -> any RelationalRunStore {
        let store = try openWithoutSettling(context, project: project)
        settleInterruptedRuns(store, project: project, console: context.console)
        return store
    }

    /// The store `StoreLocation` names, as it is (for commands that settle nothing, such as `pipe enqueue`).
    static func openWithoutSettling(_ context: CommandContext, project: ProjectFolder, configured: String? = nil)
        throws -> any RelationalRunStore
    {
        try StoreLocation.resolve(context, project: project, configured: configured).open()
    }

    /// A run still `running` whose owner process is gone was interrupted (`kill -9`, a crash, a power cut): it is
    /// marked `interrupted`, its running layers end `cancelled`, and its run record on disk says so too.
    static func settleInterruptedRuns(_ store: RunStore, project: ProjectFolder, console: Console) {
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
}
