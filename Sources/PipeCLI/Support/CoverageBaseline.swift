import PipeCore

/// What the summary compares a run's coverage with: per layer, the coverage of the last earlier finished run of the
/// same pipeline and branch that measured any.
enum CoverageBaseline {
    /// Runs looked through, newest first, before giving up: a report is written when a run ends, so this is bounded.
    static let runsLookedAt = 25

    static func before(_ record: RunRecord, in store: RunStore) -> [String: [CoverageFacts.Target]] {
        guard let ref = record.resolvedRef, record.layers.contains(where: { !CoverageFacts.targets(of: $0).isEmpty })
        else { return [:] }
        guard let runs = try? store.listRuns(RunFilter(pipeline: record.pipeline, limit: runsLookedAt)) else {
            return [:]
        }
        // Newest first: the runs after this one in the list started before it.
        for summary in runs.drop(while: { $0.runID != record.runID }).dropFirst() where summary.status == .finished {
            guard let earlier = try? store.run(summary.runID)?.record, earlier.resolvedRef == ref else { continue }
            var before: [String: [CoverageFacts.Target]] = [:]
            for layer in earlier.layers {
                let targets = CoverageFacts.targets(of: layer)
                if !targets.isEmpty { before[layer.name] = targets }
            }
            if !before.isEmpty { return before }
        }
        return [:]
    }
}
