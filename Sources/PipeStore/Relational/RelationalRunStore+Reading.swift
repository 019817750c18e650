import Foundation
import PipeCore

extension RelationalRunStore {
    public func listRuns(_ filter: RunFilter) throws -> [RunSummary] {
        var conditions: [String] = []
        var values: [any StoreBindable] = []
        if let pipeline = filter.pipeline {
            conditions.append("pipeline = ?")
            values.append(pipeline)
        }
        if !filter.statuses.isEmpty {
            let statuses = filter.statuses.map(\.rawValue).sorted()
            conditions.append("status IN (" + statuses.map { _ in "?" }.joined(separator: ", ") + ")")
            values += statuses.map { $0 as any StoreBindable }
        }
        if let since = filter.since {
            conditions.append("started_at >= ?")
            values.append(StoreTimestamp.format(since))
        }
        values.append(filter.limit.map { max($0, 0) } ?? dialect.noLimit)
        let sql = """
            SELECT id, pipeline, status, started_at, finished_at, duration_seconds, exit_code, commit_sha, host_name,
                requested_by, trigger_kind, problem, \(dialect.integer("cancel_requested_at IS NOT NULL"))
            FROM runs \(conditions.isEmpty ? "" : "WHERE " + conditions.joined(separator: " AND "))
            ORDER BY started_at DESC, id DESC LIMIT ?
            """
        return try read { db in
            try db.query(sql, values) { row -> RunSummary in
                let runID = row.text(0) ?? ""
                return RunSummary(
                    runID: runID, pipeline: row.text(1) ?? "",
                    status: try decode(RunStatus.self, row.text(2), "the status of run \(runID)"),
                    startedAt: try date(row.text(3), "the start of run \(runID)"),
                    finishedAt: try optionalDate(row.text(4), "the end of run \(runID)"),
                    durationSeconds: row.double(5), exitCode: row.int64(6).map { Int32(truncatingIfNeeded: $0) },
                    commit: row.text(7), hostName: row.text(8), requestedBy: row.text(9) ?? "",
                    trigger: row.text(10) ?? "", problem: row.text(11), cancellationRequested: row.int64(12) == 1,
                    layers: [])
            }.map { summary in
                var summary = summary
                summary.layers = try db.query(
                    "SELECT name, outcome FROM layers WHERE run_id = ? ORDER BY position", [summary.runID]
                ) { row in
                    RunSummary.Layer(
                        name: row.text(0) ?? "",
                        outcome: try row.text(1).map {
                            try decode(LayerOutcome.self, $0, "a layer outcome of run \(summary.runID)")
                        })
                }
                return summary
            }
        }
    }

    public func run(_ runID: String) throws -> StoredRun? {
        try read { db in try storedRun(db, runID) }
    }

    public func runIDs(withPrefix prefix: String, limit: Int) throws -> [String] {
        // Run ids hold only digits, lower-case hex and dashes: anything else matches nothing, and the prefix then
        // holds no pattern character (GLOB's or LIKE's), so the index on the id answers.
        guard prefix.allSatisfy({ $0.isASCII && ($0.isNumber || ("a"..."f").contains($0) || $0 == "-") }) else {
            return []
        }
        return try read { db in
            try db.query(
                """
                SELECT id FROM runs WHERE \(db.dialect.startsWithParameter("id"))
                ORDER BY \(db.dialect.byteOrder("id")) LIMIT ?
                """, [db.dialect.prefixPattern(prefix), max(limit, 0)]
            ) {
                $0.text(0) ?? ""
            }
        }
    }

    // MARK: - One run in full

    func storedRun(_ db: any StoreDatabase, _ runID: String) throws -> StoredRun? {
        let head = try db.first(
            """
            SELECT pipeline, pipeline_file, status, record_schema_version, request, commit_sha, resolved_ref, host,
                xcode, simulator, remote_run_folder, started_at, finished_at, duration_seconds, exit_code, problem,
                updated_at, owner_host, owner_pid, owner_start, cancel_requested_at, cancel_requested_by,
                cancel_reason, interrupted_at, code
            FROM runs WHERE id = ?
            """, [runID]
        ) { row -> StoredRun in
            let what = "run \(runID)"
            let record = RunRecord(
                runID: runID, pipeline: row.text(0) ?? "", pipelineFile: row.text(1) ?? "",
                status: try decode(RunStatus.self, row.text(2), "the status of \(what)"),
                request: try json(RunRecord.Request.self, row.text(4), "the request of \(what)"),
                commit: row.text(5), resolvedRef: row.text(6),
                code: try row.text(24).map { try json(CodeTrust.self, $0, "the code level of \(what)") },
                host: try row.text(7).map { try json(RunRecord.HostFacts.self, $0, "the host of \(what)") },
                xcode: row.text(8),
                simulator: try row.text(9).map { try json(SimulatorChoice.self, $0, "the simulator of \(what)") },
                remoteRunFolder: row.text(10), startedAt: row.text(11) ?? "", finishedAt: row.text(12),
                durationSeconds: row.double(13), exitCode: row.int64(14).map { Int32(truncatingIfNeeded: $0) },
                problem: row.text(15), layers: [], schemaVersion: row.int(3) ?? RunRecord.currentSchemaVersion)
            var owner: RunOwner?
            if let host = row.text(17), let pid = row.int64(18) {
                owner = RunOwner(hostname: host, pid: Int32(truncatingIfNeeded: pid), processStart: row.text(19))
            }
            var cancellation: CancellationRequest?
            if let at = row.text(20) {
                cancellation = CancellationRequest(
                    reason: row.text(22) ?? "", requestedBy: row.text(21) ?? "",
                    at: try date(at, "the cancellation time of \(what)"))
            }
            return StoredRun(
                record: record, owner: owner, cancellation: cancellation,
                interruptedAt: try optionalDate(row.text(23), "the interruption time of \(what)"), signoffs: [],
                runArtifacts: [], layerTimes: [:], updatedAt: try date(row.text(16), "the last write to \(what)"))
        }
        guard var run = head else { return nil }
        let layers = try db.query(
            """
            SELECT id, name, plugin, gate, needs, outcome, evidence, started_at, finished_at
            FROM layers WHERE run_id = ? ORDER BY position
            """, [runID]
        ) { row in
            let name = row.text(1) ?? ""
            let what = "layer \(name) of run \(runID)"
            let layer = RunRecord.LayerRecord(
                name: name, plugin: row.text(2) ?? "", gate: try decode(Gate.self, row.text(3), "the gate of \(what)"),
                needs: try json([String].self, row.text(4), "the needs of \(what)"),
                outcome: try row.text(5).map { try decode(LayerOutcome.self, $0, "the outcome of \(what)") },
                evidence: try json([String].self, row.text(6), "the evidence of \(what)"))
            let times = StoredRun.LayerTimes(
                startedAt: try optionalDate(row.text(7), "the start of \(what)"),
                finishedAt: try optionalDate(row.text(8), "the end of \(what)"))
            return (id: row.int64(0) ?? 0, layer: layer, times: times)
        }
        for (id, layer, times) in layers {
            var layer = layer
            let attempts = try self.attempts(db, layerID: id, what: "layer \(layer.name) of run \(runID)")
            layer.attempts = attempts.map(\.record)
            // The layer's tests as the engine kept them: a test retry's attempt merges into those before it.
            for attempt in attempts {
                let own = try tests(db, attemptID: attempt.id)
                layer.tests =
                    attempt.record.facts[LayerResult.testsRetriedFact] != nil
                    ? TestRetryMerge(previous: layer.tests, retry: own).tests : own
            }
            // Kept with the attempt's facts: the last attempt that built says how the layer built.
            layer.build = attempts.reversed().lazy.compactMap { BuildCacheUse(facts: $0.record.facts) }.first
            run.record.layers.append(layer)
            run.layerTimes[layer.name] = times
        }
        run.runArtifacts = try artifacts(db, "run_id = ? AND attempt_id IS NULL", [runID])
        run.signoffs = try signoffs(db, runID)
        return run
    }

    private func attempts(_ db: any StoreDatabase, layerID: Int64, what: String) throws
        -> [(id: Int64, record: RunRecord.AttemptRecord)]
    {
        let rows = try db.query(
            """
            SELECT id, number, outcome, evidence, exit, simulator_udid, started_at, finished_at, duration_seconds, facts
            FROM attempts WHERE layer_id = ? ORDER BY number
            """, [layerID]
        ) { row in
            let number = row.int(1) ?? 0
            let place = "attempt \(number) of \(what)"
            return (
                id: row.int64(0) ?? 0,
                record: RunRecord.AttemptRecord(
                    attempt: number,
                    outcome: try row.text(2).map { try decode(LayerOutcome.self, $0, "the outcome of \(place)") },
                    evidence: try json([String].self, row.text(3), "the evidence of \(place)"), exit: row.text(4),
                    simulatorUDID: row.text(5), startedAt: row.text(6) ?? "", finishedAt: row.text(7),
                    durationSeconds: row.double(8),
                    facts: try json([String: String].self, row.text(9), "the facts of \(place)"))
            )
        }
        return try rows.map { attempt in
            var attempt = attempt
            attempt.record.artifacts = try artifacts(db, "attempt_id = ?", [attempt.id])
            return attempt
        }
    }

    func artifacts(_ db: any StoreDatabase, _ condition: String, _ values: [any StoreBindable]) throws
        -> [ArtifactRecord]
    {
        try db.query(
            "SELECT kind, path, bytes, sha256, attachment FROM artifacts WHERE \(condition) ORDER BY id", values
        ) { row in
            let path = row.text(1) ?? ""
            var artifact = ArtifactRecord(
                kind: try decode(ArtifactRecord.Kind.self, row.text(0), "the kind of artifact \(path)"),
                path: path, bytes: row.int64(2), sha256: row.text(3))
            artifact.attachment = try row.text(4).map {
                try json(AttachmentFacts.self, $0, "the attachment facts of artifact \(path)")
            }
            return artifact
        }
    }

    private func tests(_ db: any StoreDatabase, attemptID: Int64) throws -> [TestCaseResult] {
        try db.query(
            """
            SELECT identifier, status, duration_seconds, failure_message, failure_location, target
            FROM test_results WHERE attempt_id = ? ORDER BY id
            """, [attemptID]
        ) { row in
            TestCaseResult(
                identifier: row.text(0) ?? "",
                status: try decode(TestCaseResult.Status.self, row.text(1), "the status of test \(row.text(0) ?? "")"),
                durationSeconds: row.double(2), failureMessage: row.text(3), failureLocation: row.text(4),
                target: row.text(5))
        }
    }
}
