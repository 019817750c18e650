import Foundation
import PipeCore
import PipeForge

/// A sign-off changes the release gate, so the run's statuses are written to the outbox again, whichever way it was
/// signed (`pipe signoff`, chat): a running controller, or `pipe forge send`, carries them to the forge.
enum ForgeSignoffReport {
    /// Writes the run's gates to the outbox when a forge's event queued it, or a `pipe run --report` posted it; a
    /// problem (a broken forges.yml) is
    /// returned to be shown, since the sign-off itself is recorded already.
    static func refresh(runID: String, project: ProjectFolder, store: RunStore) -> String? {
        guard let forgeStore = store as? ForgeReporter.Store else { return nil }
        do {
            let loader = ForgesConfigLoader(pipelines: project.availablePipelines())
            guard let forges = try loader.load(projectDirectory: project.url) else { return nil }
            let reporter = ForgeReporter(forges: forges, store: forgeStore)
            try reporter.report(runID)
            try reporter.reportManualAgain(runID)
            return nil
        } catch {
            return "the sign-off is recorded, but its statuses were not written for the forges: \(error)"
        }
    }
}
