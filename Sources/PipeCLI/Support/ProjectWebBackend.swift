import ChecklistPlugin
import Foundation
import PipeChatOps
import PipeCore
import PipeWeb

/// The web page's backend for a project: checklists from the run's pipeline file, sign-offs through
/// `SignoffRecorder` (the rules, files, events and forge statuses of `pipe signoff`), hosts from the hosts file and
/// the store.
final class ProjectWebBackend: WebBackend, @unchecked Sendable {
    let project: ProjectFolder
    let hostsFile: URL
    let store: RunStore
    let environment: [String: String]
    /// One sign-off at a time: the check and the append belong together, as in one `pipe signoff` process.
    private let lock = NSLock()

    init(project: ProjectFolder, hostsFile: URL, store: RunStore, environment: [String: String]) {
        self.project = project
        self.hostsFile = hostsFile
        self.store = store
        self.environment = environment
    }

    var projectDirectory: URL { project.url }

    func checklist(run: StoredRun, layer: String) -> WebChecklist {
        guard let record = run.record.layers.first(where: { $0.name == layer }), record.plugin == ChecklistPlugin.kind
        else { return WebChecklist(problem: "\(layer) is not a checklist layer") }
        do {
            let pipeline = try RunPipelineFile.load(run.record, project: project, environment: environment)
            guard let spec = pipeline.layer(named: layer) else {
                return WebChecklist(problem: "the pipeline file no longer has a layer '\(layer)'")
            }
            let settings = try ChecklistSettings(layer: spec)
            return WebChecklist(
                items: settings.items, target: settings.target.rawValue, fields: settings.fields,
                fieldsOnFail: settings.fieldsOnFail)
        } catch {
            return WebChecklist(problem: "\(error)")
        }
    }

    func signoff(_ request: WebSignoffRequest) throws -> WebSignoffReceipt {
        lock.lock()
        defer { lock.unlock() }
        guard let result = SignoffResult(rawValue: request.result) else {
            throw WebSignoffRefusal(["choose the result: pass or fail"])
        }
        guard let run = try store.run(request.runID) else { throw WebSignoffRefusal(["no run \(request.runID)"]) }
        let recorder = SignoffRecorder(project: project, store: store, environment: environment)
        let fields = request.fields.map { (key: $0.key, value: $0.value) }
        let checked: SignoffRecorder.CheckedSignoff
        do {
            checked = try recorder.check(run: run, layer: request.layer, result: result, fields: fields)
        } catch {
            throw WebSignoffRefusal(error.problems)
        }
        let (recorded, updated) = try recorder.record(
            run: run, layer: request.layer, result: result, checked: checked, fieldOrder: fields.map(\.key),
            signer: request.signedBy, note: request.note)
        let release = GateEvaluation.evaluate(
            .release, record: updated.record, flakyPolicy: checked.pipeline.flakyPolicy)
        return WebSignoffReceipt(
            signoffID: recorded.id, decision: recorded.decision.rawValue, releaseGate: release.headline,
            forgeProblem: recorder.forgeProblem)
    }

    func hosts() throws -> [ChatHostReport] {
        try InProcessChatOpsBackend.hostReports(hostsFile: hostsFile, store: store, environment: environment)
    }
}
