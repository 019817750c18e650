import ChecklistPlugin
import Foundation
import PipeBasics
import PipeCore

/// Checks and records a sign-off of a manual layer, the same way for `pipe signoff` and for `/pipe signoff` in a
/// chat: the pipeline's required fields, append-only in the store, a `signoff` event with the fields, and the run's
/// files (`signoffs.json`, `summary.json`) rewritten from the store.
final class SignoffRecorder {
    let project: ProjectFolder
    let store: RunStore
    let environment: [String: String]
    /// Set by `record` when the release gate's new state could not be written for the forges.
    private(set) var forgeProblem: String?

    init(project: ProjectFolder, store: RunStore, environment: [String: String]) {
        self.project = project
        self.store = store
        self.environment = environment
    }

    /// A sign-off that passed every check, with what it needs to be recorded.
    struct CheckedSignoff {
        var pipeline: Pipeline
        var fields: [String: String]
        /// The release build checked, when the layer `needs:` one.
        var build: ReleaseBuild?
    }

    /// Everything that can refuse a sign-off, checked before anything is written.
    func check(
        run: StoredRun, layer name: String, result: SignoffResult, fields: [(key: String, value: String)]
    ) throws(SignoffRefusal) -> CheckedSignoff {
        let record = run.record
        guard let layer = record.layers.first(where: { $0.name == name }) else {
            let manual = record.layers.filter { $0.plugin == ChecklistPlugin.kind }.map(\.name)
            var problem = "run \(record.runID) has no layer '\(name)'"
            if let near = EditDistance.nearest(to: name, in: record.layers.map(\.name)) {
                problem += "; did you mean '\(near)'?"
            }
            problem +=
                manual.isEmpty ? " (it has no manual layers)" : " (manual layers: \(manual.joined(separator: ", ")))"
            throw SignoffRefusal(layer: name, problems: [problem])
        }
        let signable: Set<LayerOutcome> = [.awaitingSignoff, .signedOff, .rejected]
        guard let outcome = layer.outcome, signable.contains(outcome) else {
            let state = layer.outcome?.rawValue ?? "not ended"
            let problem =
                layer.plugin == ChecklistPlugin.kind
                ? "layer \(name) was not prepared for sign-off in run \(record.runID) (it is \(state)); run the "
                    + "pipeline again and sign the new run"
                : "layer \(name) is an automated layer (\(layer.plugin), \(state)): only manual layers are signed"
            throw SignoffRefusal(layer: name, problems: [problem])
        }
        let pipeline: Pipeline
        do {
            pipeline = try RunPipelineFile.load(
                record, project: project, environment: environment)
        } catch {
            throw SignoffRefusal(
                layer: name, problems: [error.description + "; the fields a sign-off needs are declared there"])
        }
        guard let spec = pipeline.layer(named: name) else {
            throw SignoffRefusal(
                layer: name,
                problems: [
                    "\(relativePath(RunPipelineFile.location(of: record, project: project), to: project.url)) "
                        + "no longer has a layer '\(name)', so its required fields are unknown; restore it to sign this run"
                ])
        }
        let requirements: SignoffRequirements
        if spec.plugin == ChecklistPlugin.kind {
            do {
                requirements = try ChecklistSettings(layer: spec).requirements
            } catch {
                throw SignoffRefusal(layer: name, problems: [error.description])
            }
        } else {
            // A manual layer of an external plugin: Pipe does not know its fields, so it records what is given.
            requirements = SignoffRequirements(fields: [], fieldsOnFail: [], acceptsUndeclaredFields: true)
        }
        let build = try checkedBuild(run: record, layer: name)
        let bound = try Self.fields(fields, boundTo: build, layer: name, runID: record.runID)
        let values = try requirements.validate(result: result, fields: bound, layer: name)
        return CheckedSignoff(pipeline: pipeline, fields: values, build: build)
    }

    /// Appends the sign-off, its event and the run's files; returns the sign-off and the run as the store has it now.
    func record(
        run: StoredRun, layer: String, result: SignoffResult, checked: CheckedSignoff, fieldOrder: [String],
        signer: String, note: String?
    ) throws -> (Signoff, StoredRun) {
        let order = fieldOrder.contains(Self.appBuildField) ? fieldOrder : fieldOrder + [Self.appBuildField]
        let recorded = try store.appendSignoff(
            SignoffRequest(
                runID: run.record.runID, layer: layer, decision: result.decision, signedBy: signer,
                note: SignoffCommand.storedNote(note, fields: checked.fields, order: order), fields: checked.fields,
                buildSHA256: checked.build?.shipped?.sha256))
        try store.appendEvent(
            StoredEvent.Draft(
                type: SignoffEvent.type, layer: layer,
                encoding: SignoffEvent(
                    signoffID: recorded.id, result: result.rawValue, decision: result.decision.rawValue,
                    signedBy: signer, note: note, fields: checked.fields, at: UTCTimestamp.iso8601(recorded.at)),
                at: recorded.at),
            runID: run.record.runID)
        let updated = try SignoffFiles.write(runID: run.record.runID, layer: layer, store: store, project: project)
        try ReleaseVerificationFile.refresh(
            runID: run.record.runID, store: store,
            runFolder: project.artifactsFolder.appendingPathComponent(run.record.runID, isDirectory: true))
        forgeProblem = ForgeSignoffReport.refresh(runID: run.record.runID, project: project, store: store)
        return (recorded, updated)
    }
}
