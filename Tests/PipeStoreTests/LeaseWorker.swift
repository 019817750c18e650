import Foundation
import PipeCore
import PipeStore
import PipeTestSupport
import XCTest

/// A separate process that contends for leases: this test binary run again with a filter that selects
/// `LeaseWorkerEntry.testLeaseWorkerEntry`, its job in an environment variable (as `StoreWorker` does for runs).
struct LeaseWorker {
    static let environmentKey = "PIPE_LEASE_WORKER_JOB"
    static let reportPrefix = "LEASE-WORKER-REPORT "

    struct Job: Codable {
        enum Kind: String, Codable {
            /// Signals `readySignal`, waits for `startSignal`, then `holds` times: leases a slot of `host`
            /// (capacity `capacity`) — or, with `udids`, one of those simulators — holds it `holdMilliseconds`,
            /// releases it; retries a refusal after a short pause.
            case contend
            /// Leases a slot of `host` and simulator `udids[0]`, signals `readySignal`, then sleeps until killed.
            case holdUntilKilled
        }

        var kind: Kind
        var storePath: String
        var worker: Int
        var host: String = "mac-1"
        var capacity: Int = 1
        var udids: [String] = []
        var holds: Int = 0
        var holdMilliseconds: Int = 0
        var startSignal: String = ""
        var readySignal: String = ""
    }

    /// One time a worker held a lease, on the system-wide monotonic clock (comparable across processes): from
    /// just after the grant returned to just before the release was asked for, so it lies inside the lease.
    struct Hold: Codable {
        var worker: Int
        var resource: String
        var start: UInt64
        var end: UInt64
    }

    struct Report: Codable {
        var worker: Int
        var holds: [Hold]
        var refusals: Int
        var busyRetries: Int
        var errors: [String]
    }

    static func start(_ job: Job, output: URL) throws -> Process {
        try TestBinaryWorker.start(
            job, testFilter: "PipeStoreTests.LeaseWorkerEntry/testLeaseWorkerEntry", environmentKey: environmentKey,
            output: output)
    }

    static func report(from output: String) throws -> Report? {
        guard let line = output.split(separator: "\n").first(where: { $0.hasPrefix(reportPrefix) }) else { return nil }
        return try JSONDecoder().decode(Report.self, from: Data(line.dropFirst(reportPrefix.count).utf8))
    }

    static func monotonicNanoseconds() -> UInt64 {
        var now = timespec()
        clock_gettime(CLOCK_MONOTONIC, &now)
        return UInt64(now.tv_sec) * 1_000_000_000 + UInt64(now.tv_nsec)
    }

    static func runJobFromEnvironment() throws {
        guard let job = try TestBinaryWorker.job(Job.self, environmentKey: environmentKey) else { return }
        switch job.kind {
        case .contend: try contend(job)
        case .holdUntilKilled: try holdUntilKilled(job)
        }
    }

    private static func contend(_ job: Job) throws {
        _ = FileManager.default.createFile(atPath: job.readySignal, contents: nil)
        while !FileManager.default.fileExists(atPath: job.startSignal) { usleep(500) }
        var holds: [Hold] = []
        var refusals = 0
        var errors: [String] = []
        var retries = 0
        do {
            let store = try SQLiteRunStore(location: URL(fileURLWithPath: job.storePath))
            var attempt = 0
            while holds.count < job.holds && errors.isEmpty {
                attempt += 1
                // A new run id per hold: each hold is another run of this coordinator process.
                let runID = "run-\(job.worker)-\(holds.count)"
                let outcome: HostLeaseOutcome
                let resource: String
                if job.udids.isEmpty {
                    resource = job.host
                    outcome = try store.leaseHostSlot(host: job.host, capacity: job.capacity, runID: runID)
                } else {
                    resource = job.udids[(job.worker + attempt) % job.udids.count]
                    outcome = try store.leaseSimulator(host: job.host, udid: resource, runID: runID, layer: "unit")
                }
                guard let lease = outcome.lease else {
                    refusals += 1
                    usleep(UInt32.random(in: 500...2_000))
                    continue
                }
                let start = monotonicNanoseconds()
                usleep(UInt32(job.holdMilliseconds * 1000))
                let end = monotonicNanoseconds()
                holds.append(Hold(worker: job.worker, resource: resource, start: start, end: end))
                if try !store.releaseLease(id: lease.id) { errors.append("lease \(lease.id) was gone at release") }
            }
            retries = store.busyRetries
        } catch {
            errors.append("\(error)")
        }
        let report = Report(worker: job.worker, holds: holds, refusals: refusals, busyRetries: retries, errors: errors)
        print(reportPrefix + String(decoding: try JSONEncoder().encode(report), as: UTF8.self))
    }

    private static func holdUntilKilled(_ job: Job) throws {
        let store = try SQLiteRunStore(location: URL(fileURLWithPath: job.storePath))
        let runID = "doomed-\(job.worker)"
        guard try store.leaseHostSlot(host: job.host, capacity: job.capacity, runID: runID).isGranted,
            try store.leaseSimulator(host: job.host, udid: job.udids[0], runID: runID, layer: "unit").isGranted
        else {
            print("could not lease")
            return
        }
        _ = FileManager.default.createFile(atPath: job.readySignal, contents: nil)
        while true { sleep(60) }
    }
}

/// The entry point of lease worker processes; it does nothing in a normal test run (the job variable is unset).
final class LeaseWorkerEntry: XCTestCase {
    func testLeaseWorkerEntry() throws {
        try LeaseWorker.runJobFromEnvironment()
    }
}
