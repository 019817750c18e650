import Foundation
import PipeBasics
import PipeCore

extension RelationalRunStore {
    public func createRun(_ record: RunRecord, owner: RunOwner) throws {
        guard RunID(record.runID) != nil else {
            throw StoreError.invalidInput(
                "'\(record.runID)' is not a Pipe run id (yyyyMMdd-HHmmss-xxxx, as `RunID.generate` makes)")
        }
        let startedAt = try StoreTimestamp.normalize(record.startedAt, field: "the start of run \(record.runID)")
        let finishedAt = try record.finishedAt.map {
            try StoreTimestamp.normalize($0, field: "the end of run \(record.runID)")
        }
        let request = try StoreJSON.encode(record.request)
        let host = try record.host.map(StoreJSON.encode)
        let simulator = try record.simulator.map(StoreJSON.encode)
        let code = try record.code.map(StoreJSON.encode)
        try write { db in
            if try db.integer("SELECT 1 FROM runs WHERE id = ?", [record.runID]) != nil {
                throw StoreError.runExists(record.runID)
            }
            try db.execute(
                """
                INSERT INTO runs (id, pipeline, pipeline_file, status, record_schema_version, request, requested_by,
                    trigger_kind, commit_sha, resolved_ref, host_name, host, xcode, simulator, remote_run_folder,
                    started_at, finished_at, duration_seconds, exit_code, problem, updated_at, owner_host, owner_pid,
                    owner_start, code)
                VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
                """,
                [
                    record.runID, record.pipeline, record.pipelineFile, record.status.rawValue, record.schemaVersion,
                    request, record.request.requestedBy, record.request.trigger, record.commit, record.resolvedRef,
                    record.host?.name, host, record.xcode, simulator, record.remoteRunFolder, startedAt, finishedAt,
                    record.durationSeconds, record.exitCode, record.problem, now(), owner.hostname, owner.pid,
                    owner.processStart, code,
                ])
            for (position, layer) in record.layers.enumerated() {
                try insertLayer(db, runID: record.runID, position: position, layer)
            }
        }
    }

    public func updateRun(_ runID: String, _ update: RunUpdate) throws {
        let finishedAt = try update.finishedAt.map {
            try StoreTimestamp.normalize($0, field: "the end of run \(runID)")
        }
        let host = try update.host.map(StoreJSON.encode)
        let simulator = try update.simulator.map(StoreJSON.encode)
        let code = try update.code.map(StoreJSON.encode)
        try write { db in
            try requireWritableRun(db, runID)
            // One statement for every combination: a field bound to NULL keeps its value.
            try db.execute(
                """
                UPDATE runs SET status = coalesce(?, status), commit_sha = coalesce(?, commit_sha),
                    resolved_ref = coalesce(?, resolved_ref), host_name = coalesce(?, host_name),
                    host = coalesce(?, host), xcode = coalesce(?, xcode), simulator = coalesce(?, simulator),
                    remote_run_folder = coalesce(?, remote_run_folder), finished_at = coalesce(?, finished_at),
                    duration_seconds = coalesce(?, duration_seconds), exit_code = coalesce(?, exit_code),
                    problem = coalesce(?, problem), code = coalesce(?, code), updated_at = ?
                WHERE id = ?
                """,
                [
                    update.status?.rawValue, update.commit, update.resolvedRef, update.host?.name, host, update.xcode,
                    simulator, update.remoteRunFolder, finishedAt, update.durationSeconds, update.exitCode,
                    update.problem, code, now(), runID,
                ])
        }
    }

    public func startLayer(runID: String, layer: String, at date: Date) throws {
        try write { db in
            try requireWritableRun(db, runID)
            let id = try layerID(db, runID, layer)
            try db.execute(
                "UPDATE layers SET started_at = coalesce(started_at, ?) WHERE id = ?",
                [StoreTimestamp.format(date), id])
            try touch(db, runID)
        }
    }

    public func finishLayer(runID: String, layer: String, outcome: LayerOutcome, evidence: [String], at date: Date)
        throws
    {
        let evidenceJSON = try StoreJSON.encode(evidence)
        try write { db in
            try requireWritableRun(db, runID)
            let id = try layerID(db, runID, layer)
            try db.execute(
                "UPDATE layers SET outcome = ?, evidence = ?, finished_at = ? WHERE id = ?",
                [outcome.rawValue, evidenceJSON, StoreTimestamp.format(date), id])
            try touch(db, runID)
        }
    }

    public func startAttempt(_ attempt: RunRecord.AttemptRecord, runID: String, layer: String) throws {
        try write { db in
            try requireWritableRun(db, runID)
            let layerID = try layerID(db, runID, layer)
            if try attemptID(db, layerID: layerID, number: attempt.attempt) != nil {
                throw StoreError.attemptExists(runID: runID, layer: layer, attempt: attempt.attempt)
            }
            try insertAttempt(db, runID: runID, layerID: layerID, attempt, tests: [])
            try touch(db, runID)
        }
    }

    public func finishAttempt(_ attempt: RunRecord.AttemptRecord, runID: String, layer: String) throws {
        let place = "run \(runID), layer \(layer), attempt \(attempt.attempt)"
        let finishedAt = try attempt.finishedAt.map { try StoreTimestamp.normalize($0, field: "the end of \(place)") }
        let evidence = try StoreJSON.encode(attempt.evidence)
        let facts = try StoreJSON.encode(attempt.facts)
        try write { db in
            try requireWritableRun(db, runID)
            let layerID = try layerID(db, runID, layer)
            // An attempt finished without having been started is recorded whole: nothing it says is lost.
            guard let id = try attemptID(db, layerID: layerID, number: attempt.attempt) else {
                try insertAttempt(db, runID: runID, layerID: layerID, attempt, tests: [])
                return try touch(db, runID)
            }
            try db.execute(
                """
                UPDATE attempts SET outcome = ?, evidence = ?, exit = ?, simulator_udid = coalesce(?, simulator_udid),
                    finished_at = ?, duration_seconds = ?, facts = ?
                WHERE id = ?
                """,
                [
                    attempt.outcome?.rawValue, evidence, attempt.exit, attempt.simulatorUDID, finishedAt,
                    attempt.durationSeconds, facts, id,
                ])
            try upsertArtifacts(db, runID: runID, attemptID: id, attempt.artifacts)
            try touch(db, runID)
        }
    }

    public func recordTestResults(_ results: [TestCaseResult], runID: String, layer: String, attempt: Int) throws {
        try write { db in
            try requireWritableRun(db, runID)
            let layerID = try layerID(db, runID, layer)
            guard let id = try attemptID(db, layerID: layerID, number: attempt) else {
                throw StoreError.attemptNotFound(runID: runID, layer: layer, attempt: attempt)
            }
            try upsertTests(db, attemptID: id, results)
            try touch(db, runID)
        }
    }

    public func recordArtifacts(_ artifacts: [ArtifactRecord], runID: String, layer: String?, attempt: Int?) throws {
        try write { db in
            try requireWritableRun(db, runID)
            var attemptID: Int64?
            if let layer {
                let layerID = try layerID(db, runID, layer)
                let found =
                    if let attempt {
                        try self.attemptID(db, layerID: layerID, number: attempt)
                    } else {
                        try db.integer(
                            "SELECT id FROM attempts WHERE layer_id = ? ORDER BY number DESC LIMIT 1", [layerID]
                        )
                    }
                guard let found else {
                    throw StoreError.attemptNotFound(runID: runID, layer: layer, attempt: attempt ?? 1)
                }
                attemptID = found
            }
            try upsertArtifacts(db, runID: runID, attemptID: attemptID, artifacts)
            try touch(db, runID)
        }
    }

    // MARK: - Rows

    private func insertLayer(_ db: any StoreDatabase, runID: String, position: Int, _ layer: RunRecord.LayerRecord)
        throws
    {
        let ends = try layer.attempts.compactMap(\.finishedAt).map {
            try StoreTimestamp.normalize($0, field: "the end of layer \(layer.name)")
        }
        let layerID = try db.insert(
            """
            INSERT INTO layers (run_id, position, name, plugin, gate, needs, outcome, evidence, started_at, finished_at)
            VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
            """,
            [
                runID, position, layer.name, layer.plugin, layer.gate.rawValue, try StoreJSON.encode(layer.needs),
                layer.outcome?.rawValue, try StoreJSON.encode(layer.evidence), StoreValue.null,
                layer.outcome == nil ? nil : ends.max(),
            ], returning: "id")
        // The layer's start is its first attempt's, set as each attempt is inserted.
        if layer.attempts.isEmpty && !layer.tests.isEmpty {
            throw StoreError.invalidInput(
                "run \(runID), layer \(layer.name) has test results but no attempt to hold them")
        }
        for (index, attempt) in layer.attempts.enumerated() {
            // The record keeps a layer's tests once, from its last attempt.
            let tests = index == layer.attempts.count - 1 ? layer.tests : []
            try insertAttempt(db, runID: runID, layerID: layerID, attempt, tests: tests)
        }
    }

    private func insertAttempt(
        _ db: any StoreDatabase, runID: String, layerID: Int64, _ attempt: RunRecord.AttemptRecord,
        tests: [TestCaseResult]
    ) throws {
        guard attempt.attempt >= 1 else {
            throw StoreError.invalidInput("attempt numbers start at 1; run \(runID) gave \(attempt.attempt)")
        }
        let place = "run \(runID), attempt \(attempt.attempt)"
        let startedAt = try StoreTimestamp.normalize(attempt.startedAt, field: "the start of \(place)")
        let finishedAt = try attempt.finishedAt.map { try StoreTimestamp.normalize($0, field: "the end of \(place)") }
        let attemptID = try db.insert(
            """
            INSERT INTO attempts (layer_id, number, outcome, evidence, exit, simulator_udid, started_at, finished_at,
                duration_seconds, facts)
            VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
            """,
            [
                layerID, attempt.attempt, attempt.outcome?.rawValue, try StoreJSON.encode(attempt.evidence),
                attempt.exit, attempt.simulatorUDID, startedAt, finishedAt, attempt.durationSeconds,
                try StoreJSON.encode(attempt.facts),
            ], returning: "id")
        try db.execute(
            "UPDATE layers SET started_at = \(db.dialect.least("coalesce(started_at, ?)", "?")) WHERE id = ?",
            [startedAt, startedAt, layerID])
        try upsertArtifacts(db, runID: runID, attemptID: attemptID, attempt.artifacts)
        try upsertTests(db, attemptID: attemptID, tests)
    }

    private func upsertTests(_ db: any StoreDatabase, attemptID: Int64, _ results: [TestCaseResult]) throws {
        for result in results {
            try db.execute(
                """
                INSERT INTO test_results (attempt_id, identifier, status, duration_seconds, failure_message,
                    failure_location, target)
                VALUES (?, ?, ?, ?, ?, ?, ?)
                ON CONFLICT (attempt_id, identifier) DO UPDATE SET status = excluded.status,
                    duration_seconds = excluded.duration_seconds, failure_message = excluded.failure_message,
                    failure_location = excluded.failure_location, target = excluded.target
                """,
                [
                    attemptID, result.identifier, result.status.rawValue, result.durationSeconds,
                    result.failureMessage, result.failureLocation, result.target,
                ])
        }
    }

    private func upsertArtifacts(
        _ db: any StoreDatabase, runID: String, attemptID: Int64?, _ artifacts: [ArtifactRecord]
    )
        throws
    {
        for artifact in artifacts {
            guard !artifact.path.isEmpty else {
                throw StoreError.invalidInput("an artifact of run \(runID) has an empty path")
            }
            if let bytes = artifact.bytes, bytes < 0 {
                throw StoreError.invalidInput("artifact \(artifact.path) of run \(runID) has a negative size \(bytes)")
            }
            let attachment = try artifact.attachment.map(StoreJSON.encode)
            try db.execute(
                """
                INSERT INTO artifacts (run_id, attempt_id, kind, path, bytes, sha256, attachment)
                VALUES (?, ?, ?, ?, ?, ?, ?)
                ON CONFLICT (run_id, path) DO UPDATE SET attempt_id = excluded.attempt_id, kind = excluded.kind,
                    bytes = excluded.bytes, sha256 = excluded.sha256, attachment = excluded.attachment
                """,
                [runID, attemptID, artifact.kind.rawValue, artifact.path, artifact.bytes, artifact.sha256, attachment])
        }
    }
}
