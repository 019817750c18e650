import Foundation
import PipeBasics
import PipeCore

/// Writes the commit statuses of runs a forge's event queued to the outbox as they go: `pending` once queued,
/// running once started, each gate's verdict once ended, and the release gate again when someone signs. Only runs
/// the controller queued from a forge's event, a watch or a schedule, with the pipeline's default parameters and
/// all its layers, report on the required contexts: nothing else can set them.
public struct ForgeReporter {
    public typealias Store = RunQueue & RunStore & ForgeStore

    private let forges: ForgesConfig
    private let store: Store
    private let clock: () -> Date
    private let flakyPolicy: (RunRecord) -> FlakyPolicy

    public init(
        forges: ForgesConfig, store: Store, clock: @escaping () -> Date = Date.init,
        flakyPolicy: @escaping (RunRecord) -> FlakyPolicy = { _ in .allow }
    ) {
        self.forges = forges
        self.store = store
        self.clock = clock
        self.flakyPolicy = flakyPolicy
    }

    /// Writes the current state of every gate of run `runID`, if a forge's event queued it; returns how many
    /// statuses were written. A queued run is `pending`, a running one `running`, an ended one its verdicts.
    @discardableResult
    public func report(_ runID: String) throws -> Int {
        guard let item = try store.queuedRun(runID), Self.reportsRequiredContexts(item.request) else { return 0 }
        let stored = try store.run(runID)
        var written = 0
        for (trigger, forge) in targets(of: item, record: stored?.record) {
            written += try report(item, stored: stored, trigger: trigger, forge: forge)
        }
        return written
    }

    /// Where a run reports: the forge whose event queued it, or for a watch's or a schedule's run, once its commit
    /// is known, every forge whose `push` rules run its pipeline (a branch that forge also sends pushes for).
    private func targets(of item: QueuedRun, record: RunRecord?) -> [(ForgeTrigger, ForgeConfig)] {
        if let trigger = item.request.forge {
            return forges.forge(named: trigger.forge).map { [(trigger, $0)] } ?? []
        }
        guard let record, let commit = record.commit else { return [] }
        let ref = record.resolvedRef ?? ""
        let branch = ref.hasPrefix("refs/heads/") ? String(ref.dropFirst("refs/heads/".count)) : ref
        return forges.forges.filter { forge in forge.push.contains { $0.pipelines.contains(item.request.pipeline) } }
            .map { forge in
                (
                    ForgeTrigger(
                        forge: forge.name, repository: forge.repository, event: .push, number: nil, headSHA: commit,
                        headBranch: branch, fetchRef: ref), forge
                )
            }
    }

    private func report(_ item: QueuedRun, stored: StoredRun?, trigger: ForgeTrigger, forge: ForgeConfig) throws
        -> Int
    {
        let runID = item.runID
        let gates = Self.gates(of: stored?.record)
        var written = 0
        var reports: [ForgeGateReport] = []
        for gate in gates {
            let state: ForgeGateReport.State
            if let record = stored?.record {
                state = judged(gate, record: record)
            } else if item.state == .cancelled {
                state = .cancelled
            } else if item.state == .failed {
                state = .couldNotJudge(.refused, reason: item.problem ?? "the run never started")
            } else {
                state = .queued
            }
            let report = ForgeGateReport(pipeline: item.request.pipeline, gate: gate, state: state, runID: RunID(runID))
            try write(report, trigger: trigger, forge: forge)
            reports.append(report)
            written += 1
        }
        if forge.comment, let number = trigger.number, let record = stored?.record,
            record.status != .queued && record.status != .running, let id = RunID(runID)
        {
            let comment = PullRequestComment(
                pipeline: item.request.pipeline, runID: id, sha: try CommitSHA(trigger.headSHA), gates: reports,
                failingTests: Self.failingTests(of: record), checklists: try checklists(of: record, runID: runID),
                runURL: forges.runURL(runID)?.absoluteString)
            _ = try store.enqueueForgeUpdate(
                try ForgeCommentOutbox.draft(comment, pullRequest: number, forge: forge, at: clock()))
            written += 1
        }
        return written
    }

    /// A person's `pipe run --report`: each gate of `record` as a status under its manual context
    /// (`pipe/<pipeline>/<gate>/manual`) on `forge`, at the run's commit; `pending` while it runs. Statuses, never
    /// check runs: a check run is rebuilt from the run's queue item when sent, and a manual run has none. Returns
    /// the contexts written (none before the commit is known).
    @discardableResult
    public func reportManual(_ record: RunRecord, on forge: ForgeConfig) throws -> [String] {
        guard let commit = record.commit else { return [] }
        let sha = try CommitSHA(commit)
        let ref = record.resolvedRef ?? ""
        let branch = ref.hasPrefix("refs/heads/") ? String(ref.dropFirst("refs/heads/".count)) : nil
        let contexts = try Self.gates(of: record).map { gate in
            let report = ForgeGateReport(
                pipeline: record.pipeline, gate: gate, state: judged(gate, record: record),
                runID: RunID(record.runID), isManual: true)
            _ = try store.enqueueForgeUpdate(
                try ForgeStatusOutbox.draft(
                    report, sha: sha, forge: forge, baseURL: forges.baseURL, branch: branch, at: clock()))
            return report.context
        }
        // Remembered, so that a later sign-off of this run reports to the same forge again.
        try store.recordForgeObjectID(
            forge: forge.name, key: Self.manualReportKey(record.runID), id: "reported", at: clock())
        return contexts
    }

    /// Writes the manual statuses of run `runID` again on every forge a `pipe run --report` posted it to (after a
    /// sign-off); returns how many were written.
    @discardableResult
    public func reportManualAgain(_ runID: String) throws -> Int {
        guard let record = try store.run(runID)?.record else { return 0 }
        var written = 0
        for forge in forges.forges
        where try store.forgeObjectID(forge: forge.name, key: Self.manualReportKey(runID)) != nil {
            written += try reportManual(record, on: forge).count
        }
        return written
    }

    static func manualReportKey(_ runID: String) -> String { "manual-report \(runID)" }

    /// Writes `superseded by <sha>` on the gates of a run a newer head replaced.
    public func superseded(_ runID: String, bySHA sha: String) throws {
        guard let item = try store.queuedRun(runID), let trigger = item.request.forge,
            Self.reportsRequiredContexts(item.request), let forge = forges.forge(named: trigger.forge)
        else { return }
        let newer = try CommitSHA(sha)
        for gate in Self.gates(of: try store.run(runID)?.record) {
            try write(
                ForgeGateReport(
                    pipeline: item.request.pipeline, gate: gate, state: .superseded(by: newer), runID: RunID(runID)),
                trigger: trigger, forge: forge)
        }
    }

    /// A request with parameters or a subset of layers could post `success` on a context branch protection
    /// requires: only a forge's own requests, with the defaults, report there.
    static func reportsRequiredContexts(_ request: QueueRequest) -> Bool {
        [.forge, .watch, .schedule].contains(request.source) && request.parameters.isEmpty
    }

    /// The merge gate always; the release gate when the run has a layer of it (or is not recorded yet).
    static func gates(of record: RunRecord?) -> [Gate] {
        guard let record else { return [.merge] }
        return record.layers.contains { $0.gate == .release } ? [.merge, .release] : [.merge]
    }

    private func judged(_ gate: Gate, record: RunRecord) -> ForgeGateReport.State {
        let evaluation = GateEvaluation.evaluate(gate, record: record, flakyPolicy: flakyPolicy(record))
        let layers = record.layers.filter { evaluation.gates.contains($0.gate) }
        let tests = layers.flatMap(\.tests)
        let counts = tests.isEmpty ? nil : (failed: tests.filter { $0.status == .failed }.count, total: tests.count)
        let refused =
            record.exitCode == PipeExitCode.usage.rawValue && record.layers.allSatisfy { $0.outcome == nil }
            ? (record.problem ?? "the run was refused before any layer") : nil
        return .judged(evaluation, runStatus: record.status, tests: counts, refusedBeforeAnyLayer: refused)
    }

    /// Every failed test of the run, with its message and place.
    static func failingTests(of record: RunRecord) -> [ForgeFailingTest] {
        record.layers.flatMap { layer in
            layer.tests.filter { $0.status == .failed }.map { test in
                var file: String?
                var line: Int?
                if let location = test.failureLocation, let colon = location.lastIndex(of: ":"),
                    let number = Int(location[location.index(after: colon)...])
                {
                    (file, line) = (String(location[..<colon]), number)
                }
                return ForgeFailingTest(
                    layer: layer.name, name: test.identifier, message: test.failureMessage ?? "failed", file: file,
                    line: line)
            }
        }
    }

    /// The run's release checklists, as they stand, with who signed each.
    private func checklists(of record: RunRecord, runID: String) throws -> [ForgeChecklist] {
        let signoffs = try store.signoffs(runID: runID)
        return record.layers.filter { $0.gate == .release }.map { layer in
            let standing: ForgeChecklist.Standing =
                switch layer.outcome {
                case .awaitingSignoff: .awaitingSignoff
                case .signedOff: .signedOff
                case .rejected: .rejected
                default: .notReached
                }
            return ForgeChecklist(
                layer: layer.name, standing: standing,
                signedBy: signoffs.last { $0.layer == layer.name }?.signedBy)
        }
    }

    /// A status, or where the forge reports as a GitHub App with `checks: true`, the gate's check run instead.
    private func write(_ report: ForgeGateReport, trigger: ForgeTrigger, forge: ForgeConfig) throws {
        let sha = try CommitSHA(trigger.headSHA)
        if Self.reportsWithChecks(forge) {
            var supersededBy: String?
            if case .superseded(let newer) = report.state { supersededBy = newer.value }
            _ = try store.enqueueForgeUpdate(
                try ForgeCheckRunOutbox.draft(report, sha: sha, forge: forge, supersededBy: supersededBy, at: clock()))
            return
        }
        let draft = try ForgeStatusOutbox.draft(
            report, sha: sha, forge: forge, baseURL: forges.baseURL, branch: trigger.headBranch, at: clock())
        _ = try store.enqueueForgeUpdate(draft)
    }

    /// Check runs replace the statuses of the same gates on a GitHub App that asks for them.
    static func reportsWithChecks(_ forge: ForgeConfig) -> Bool {
        forge.kind == .github && forge.app != nil && forge.checksReplaceStatuses
    }

    /// The check run of `payload`'s run and gate as the run store has it now, with its failing tests as
    /// annotations; `nil` when the run is no longer a forge's.
    public func checkRun(for payload: ForgeCheckRunOutbox.Payload, forge: ForgeConfig) throws -> GitHubCheckRun? {
        guard let item = try store.queuedRun(payload.runID) else { return nil }
        let stored = try store.run(payload.runID)
        guard let head = item.request.forge?.headSHA ?? stored?.record.commit else { return nil }
        let sha = try CommitSHA(head)
        let state: ForgeGateReport.State
        if let newer = payload.supersededBy {
            state = .superseded(by: try CommitSHA(newer))
        } else if let record = stored?.record {
            state = judged(payload.gate, record: record)
        } else {
            state = .queued
        }
        let report = ForgeGateReport(
            pipeline: item.request.pipeline, gate: payload.gate, state: state, runID: RunID(payload.runID))
        // Failures name files on the host, under the run's copy of the pipeline's workspace folder: annotations
        // need them relative to the repository.
        var failing = stored.map { Self.failingTests(of: $0.record) } ?? []
        var root: String?
        if let record = stored?.record, let folder = record.remoteRunFolder {
            let workspace = record.request.workspace
            root = folder + "/workspace"
            if workspace != "." && !workspace.isEmpty {
                failing = failing.map { test in
                    var test = test
                    if let file = test.file, file.hasPrefix(folder + "/workspace/") {
                        test.file =
                            folder + "/workspace/" + workspace + "/" + file.dropFirst((folder + "/workspace/").count)
                    }
                    return test
                }
            }
        }
        return GitHubCheckRun(
            repository: try forge.apiRepository, report: report, sha: sha, failingTests: failing, checkoutRoot: root,
            baseURL: forges.baseURL?.absoluteString)
    }
}
