import PipeCore

extension ForgeGateReport.State {
    /// The state of a gate as `GateEvaluation` judged it, for a run in `runStatus`. `tests` are the run's counts
    /// (failed, total) where the layers reported them; `refusedBeforeAnyLayer` is a run that exited 2 before a layer
    /// ran. Superseding is decided by whoever supersedes, not here.
    public static func judged(
        _ evaluation: GateEvaluation, runStatus: RunStatus, tests: (failed: Int, total: Int)? = nil,
        refusedBeforeAnyLayer: String? = nil
    ) -> ForgeGateReport.State {
        if let reason = refusedBeforeAnyLayer { return .couldNotJudge(.refused, reason: reason) }
        switch runStatus {
        case .queued: return .queued
        case .running: return .running
        case .cancelled: return .cancelled
        case .interrupted, .finished: break
        }
        switch evaluation.verdict {
        case .passed:
            return .passed(tests: tests?.total)
        case .pendingSignoff:
            return .awaitingSignoff(checklists: evaluation.decidingLayers.map(\.name))
        case .failed:
            let first = evaluation.decidingLayers.first
            return .appFailed(
                .init(
                    layer: first?.name ?? evaluation.gate.rawValue,
                    failedTests: tests.map(\.failed).flatMap { $0 > 0 ? $0 : nil },
                    totalTests: tests?.total, reason: first?.reason ?? "failed"))
        case .couldNotJudge:
            if runStatus == .interrupted {
                return .couldNotJudge(.infrastructure, reason: evaluation.runProblem ?? "the run was interrupted")
            }
            let deciding = evaluation.decidingLayers
            if deciding.contains(where: { $0.outcome == .cancelled }) { return .cancelled }
            let kinds: [(LayerOutcome, ForgeGateReport.NoJudgement)] = [
                (.hostConfig, .hostConfig), (.infrastructure, .infrastructure), (.pluginError, .pluginError),
            ]
            for (outcome, kind) in kinds {
                if let layer = deciding.first(where: { $0.outcome == outcome }) {
                    return .couldNotJudge(kind, reason: ForgeGateReport.State.evidence(of: layer, outcome: outcome))
                }
            }
            // Skipped or not run: a layer it needs could not be judged, so the setup is what to look at.
            let names = deciding.map(\.name).joined(separator: ", ")
            return .couldNotJudge(
                .infrastructure, reason: names.isEmpty ? evaluation.headline : "\(names) did not run")
        }
    }

    /// The reason without the outcome's own name in front (`host-config: scheme …` → `scheme …`), since the
    /// description names the kind already.
    private static func evidence(of layer: GateEvaluation.LayerVerdict, outcome: LayerOutcome) -> String {
        let prefix = outcome.rawValue + ": "
        return layer.reason.hasPrefix(prefix)
            ? String(layer.reason.dropFirst(prefix.count)) : "\(layer.name) could not be judged"
    }
}
