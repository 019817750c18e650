import Foundation
import PipeCore
import PipeStore
import PipeTestSupport
import XCTest

/// A separate process that writes to a store: this very test binary run again with a filter that selects
/// `StoreWorkerEntry.testWorkerEntry`, its job in an environment variable.
///
/// The tests need real processes (separate connections, separate pids, a real `kill -9`), and a test target
/// cannot add an executable without changing Package.swift.
struct StoreWorker {
    static let environmentKey = "PIPE_STORE_WORKER_JOB"

    /// What a worker does.
    struct Job: Codable {
        enum Kind: String, Codable {
            /// Signals `readySignal`, waits for `startSignal`, then writes `runs` whole runs (`SimulatedRun`)
            /// and reports.
            case writeRuns
            /// Starts `runID` and its first layer, signals `readySignal`, then keeps writing events until killed.
            case hangInALayer
        }

        var kind: Kind
        var storePath: String
        var worker: Int = 0
        var runs: Int = 0
        var runID: String = ""
        var startSignal: String = ""
        var readySignal: String = ""
    }

    /// What a `writeRuns` worker reports on its last line of output.
    struct Report: Codable {
        var worker: Int
        var runs: Int
        var seconds: Double
        var busyRetries: Int
        var errors: [String]
    }

    static let reportPrefix = "STORE-WORKER-REPORT "

    /// Starts a worker process running `job`; its output goes to `output`.
    static func start(_ job: Job, output: URL) throws -> Process {
        try TestBinaryWorker.start(
            job, testFilter: "PipeStoreTests.StoreWorkerEntry/testWorkerEntry", environmentKey: environmentKey,
            output: output)
    }

    /// Runs the job of this process, when it is a worker.
    static func runJobFromEnvironment() throws {
        guard let job = try TestBinaryWorker.job(Job.self, environmentKey: environmentKey) else { return }
        switch job.kind {
        case .writeRuns: try writeRuns(job)
        case .hangInALayer: try hangInALayer(job)
        }
    }

    private static func waitFor(_ path: String) {
        while !FileManager.default.fileExists(atPath: path) { usleep(500) }
    }

    private static func writeRuns(_ job: Job) throws {
        _ = FileManager.default.createFile(atPath: job.readySignal, contents: nil)
        waitFor(job.startSignal)
        let started = Date()
        var errors: [String] = []
        var retries = 0
        // Opening is part of the race: eight processes find an empty file and migrate it at once.
        do {
            let store = try SQLiteRunStore(location: URL(fileURLWithPath: job.storePath))
            for index in 0..<job.runs {
                // Distinct start seconds per worker and run keep the generated ids distinct.
                let runID = StoreFixtures.runID(job.worker * 10_000 + index)
                do {
                    try SimulatedRun.perform(
                        store, runID: runID, commit: "commit-\(index % 3)", failing: index % 2 == 1)
                    // Readers run between the writes, as `pipe runs list` and `logs --follow` would.
                    _ = try store.listRuns(RunFilter(limit: 20))
                    _ = try store.events(runID: runID, after: 0, layer: nil, limit: 1000)
                    _ = try store.cancellationRequest(runID: runID)
                } catch {
                    errors.append("\(runID): \(error)")
                }
            }
            retries = store.busyRetries
        } catch {
            errors.append("open: \(error)")
        }
        let report = Report(
            worker: job.worker, runs: job.runs, seconds: Date().timeIntervalSince(started), busyRetries: retries,
            errors: errors)
        print(reportPrefix + String(decoding: try JSONEncoder().encode(report), as: UTF8.self))
    }

    private static func hangInALayer(_ job: Job) throws {
        let store = try SQLiteRunStore(location: URL(fileURLWithPath: job.storePath))
        var record = StoreFixtures.newRun(job.runID)
        record.remoteRunFolder = "pipe-work/runs/\(job.runID)"
        record.host = .init(
            name: "mac-1", endpoint: "ci@127.0.0.1:2222", keyType: "ssh-ed25519", fingerprint: "SHA256:x")
        try store.createRun(record, owner: RunOwner.current())
        try store.startAttempt(
            .init(attempt: 1, simulatorUDID: "UDID-1", startedAt: StoreFixtures.timestamp(Date())), runID: job.runID,
            layer: "unit")
        try store.recordTestResults(
            [TestCaseResult(identifier: "UnitTests/testOne()", status: .passed)], runID: job.runID, layer: "unit",
            attempt: 1)
        try store.recordArtifacts(
            [ArtifactRecord(kind: .log, path: "artifacts/\(job.runID)/unit/xcodebuild.log", bytes: 10)],
            runID: job.runID, layer: "unit", attempt: 1)
        _ = FileManager.default.createFile(atPath: job.readySignal, contents: nil)
        // Keep writing so the kill is likely to land inside a transaction.
        var index = 0
        while true {
            index += 1
            try store.appendEvent(.init(type: "output", layer: "unit", payload: "\(index)"), runID: job.runID)
        }
    }
}

/// The entry point of worker processes; it does nothing in a normal test run (the job variable is unset).
final class StoreWorkerEntry: XCTestCase {
    func testWorkerEntry() throws {
        try StoreWorker.runJobFromEnvironment()
    }
}
