import Foundation
import PipeCore
import PipeStore
import XCTest

/// Several `pipe` processes on one store at once.
final class ConcurrencyTests: StoreTestCase {
    func testEightProcessesWriteAtOnceWithoutALockError() throws {
        let workers = 8
        let runsPerWorker = 25
        let start = folder.appending("go").path
        // The store file does not exist yet: the processes race to create and migrate it too.
        let processes = try (0..<workers).map { worker in
            try StoreWorker.start(
                .init(
                    kind: .writeRuns, storePath: storeURL.path, worker: worker, runs: runsPerWorker, startSignal: start,
                    readySignal: folder.appending("ready-\(worker)").path),
                output: folder.appending("worker-\(worker).log"))
        }
        // Every process waits at the start line, so they begin together.
        let deadline = Date().addingTimeInterval(60)
        while (0..<workers).contains(where: {
            !FileManager.default.fileExists(atPath: folder.appending("ready-\($0)").path)
        }),
            processes.allSatisfy(\.isRunning), Date() < deadline
        {
            usleep(1_000)
        }
        let began = Date()
        _ = FileManager.default.createFile(atPath: start, contents: nil)
        for process in processes { process.waitUntilExit() }
        let wallSeconds = Date().timeIntervalSince(began)

        var reports: [StoreWorker.Report] = []
        for (worker, process) in processes.enumerated() {
            let output = try String(contentsOf: folder.appending("worker-\(worker).log"), encoding: .utf8)
            XCTAssertEqual(process.terminationStatus, 0, output)
            XCTAssertFalse(output.contains("locked"), output)
            guard let line = output.split(separator: "\n").first(where: { $0.hasPrefix(StoreWorker.reportPrefix) })
            else {
                XCTFail("worker \(worker) did not report:\n\(output)")
                continue
            }
            let report = try JSONDecoder().decode(
                StoreWorker.Report.self, from: Data(line.dropFirst(StoreWorker.reportPrefix.count).utf8))
            XCTAssertEqual(report.errors, [], "worker \(worker)")
            reports.append(report)
        }

        // Every write of every process is there, once.
        let runs = workers * runsPerWorker
        let raw = try rawDatabase()
        XCTAssertEqual(try count("runs", raw), Int64(runs))
        XCTAssertEqual(try count("runs", raw, where: "status = 'finished'"), Int64(runs))
        XCTAssertEqual(try count("layers", raw), Int64(runs * SimulatedRun.layers.count))
        XCTAssertEqual(try count("attempts", raw), Int64(runs * SimulatedRun.layers.count))
        XCTAssertEqual(
            try count("test_results", raw), Int64(runs * SimulatedRun.layers.count * SimulatedRun.testsPerLayer))
        XCTAssertEqual(try count("artifacts", raw), Int64(runs * SimulatedRun.layers.count * 3))
        XCTAssertEqual(try count("events", raw), Int64(runs * SimulatedRun.eventsPerRun))
        XCTAssertEqual(try raw.text("PRAGMA integrity_check"), "ok")
        XCTAssertEqual(try raw.integer("PRAGMA user_version"), Int64(SQLiteRunStore.supportedSchemaVersion))

        let writes = runs * SimulatedRun.writesPerRun
        print(
            String(
                format:
                    "store concurrency: %d processes wrote %d runs (%d transactions) in %.2f s: %.0f transactions/s, "
                    + "%.1f runs/s; busy retries: %d",
                workers, runs, writes, wallSeconds, Double(writes) / wallSeconds, Double(runs) / wallSeconds,
                reports.reduce(0) { $0 + $1.busyRetries }))
    }

    func testCancellationAskedByAnotherProcessReachesThePollingOne() throws {
        let runner = try openStore()
        let runID = StoreFixtures.runID(50)
        try runner.createRun(StoreFixtures.newRun(runID), owner: StoreFixtures.owner())
        XCTAssertNil(try runner.cancellationRequest(runID: runID))

        // `pipe runs cancel` in another terminal: its own connection to the file.
        let canceller = try openStore()
        let at = StoreFixtures.epoch
        XCTAssertEqual(
            try canceller.requestCancellation(runID: runID, reason: "wrong branch", requestedBy: "gina", at: at),
            .requested)
        let request = CancellationRequest(reason: "wrong branch", requestedBy: "gina", at: at)
        XCTAssertEqual(try runner.cancellationRequest(runID: runID), request)
        XCTAssertEqual(
            try canceller.requestCancellation(runID: runID, reason: "again", requestedBy: "hal", at: Date()),
            .alreadyRequested(request), "the first request stands")
        XCTAssertEqual(try canceller.listRuns(RunFilter()).first?.cancellationRequested, true)

        try runner.updateRun(runID, RunUpdate(status: .cancelled, exitCode: 130))
        let ended = StoreFixtures.runID(51)
        try runner.createRun(StoreFixtures.finishedRun(ended), owner: StoreFixtures.owner())
        XCTAssertEqual(
            try canceller.requestCancellation(runID: ended, reason: "x", requestedBy: "hal", at: Date()),
            .notInProgress(.finished))
        let unknown = StoreFixtures.runID(52)
        XCTAssertThrowsError(
            try canceller.requestCancellation(runID: unknown, reason: "x", requestedBy: "hal", at: Date())
        ) {
            XCTAssertEqual($0 as? StoreError, .runNotFound(unknown))
        }
    }

    func testAWriteWaitsOutAnotherProcessesLongTransaction() throws {
        let store = try SQLiteRunStore(location: storeURL, busyTimeoutMilliseconds: 20, busyRetrySeconds: 10)
        let runID = StoreFixtures.runID(60)
        try store.createRun(StoreFixtures.newRun(runID), owner: StoreFixtures.owner())
        // Another connection holds the write lock for 300 ms, far past the 20 ms busy timeout.
        let other = try rawDatabase()
        try other.execute("BEGIN IMMEDIATE")
        let released = expectation(description: "lock released")
        DispatchQueue.global().asyncAfter(deadline: .now() + 0.3) {
            XCTAssertEqual(try? other.execute("COMMIT"), 0)
            released.fulfill()
        }
        let started = Date()
        try store.finishLayer(runID: runID, layer: "unit", outcome: .passed, evidence: [], at: Date())
        XCTAssertGreaterThanOrEqual(Date().timeIntervalSince(started), 0.25)
        XCTAssertGreaterThan(store.busyRetries, 0, "the transaction was retried, not failed")
        XCTAssertEqual(try store.run(runID)?.record.layers[0].outcome, .passed)
        wait(for: [released], timeout: 5)
    }

    func testALockHeldPastTheRetriesIsReportedClearly() throws {
        let store = try SQLiteRunStore(location: storeURL, busyTimeoutMilliseconds: 20, busyRetrySeconds: 0.3)
        let runID = StoreFixtures.runID(61)
        try store.createRun(StoreFixtures.newRun(runID), owner: StoreFixtures.owner())
        let other = try rawDatabase()
        try other.execute("BEGIN IMMEDIATE")
        defer { _ = try? other.execute("ROLLBACK") }
        XCTAssertThrowsError(try store.updateRun(runID, RunUpdate(xcode: "16.2"))) { error in
            XCTAssertEqual(error as? StoreError, .busy(path: storeURL.path, seconds: 0.3))
            let message = "\(error)"
            XCTAssertFalse(message.contains("database is locked"), message)
            XCTAssertTrue(message.contains("stayed locked by another process"), message)
            XCTAssertTrue(message.contains("fuser"), message)
        }
    }

    func testAStoreIsSafeToShareBetweenThreads() throws {
        let store = try openStore()
        let threads = 4
        let runsPerThread = 5
        let failures = FailureList()
        DispatchQueue.concurrentPerform(iterations: threads) { thread in
            for index in 0..<runsPerThread {
                do {
                    try SimulatedRun.perform(store, runID: StoreFixtures.runID(thread * 1000 + index))
                } catch {
                    failures.append("\(error)")
                }
            }
        }
        XCTAssertEqual(failures.all, [])
        XCTAssertEqual(try store.listRuns(RunFilter()).count, threads * runsPerThread)
    }
}

/// Errors collected from several threads.
private final class FailureList: @unchecked Sendable {
    private let lock = NSLock()
    private var items: [String] = []

    func append(_ item: String) {
        lock.lock()
        items.append(item)
        lock.unlock()
    }

    var all: [String] {
        lock.lock()
        defer { lock.unlock() }
        return items
    }
}
