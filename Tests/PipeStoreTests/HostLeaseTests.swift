import Foundation
import PipeCore
import PipeStore
import XCTest

/// Host slots and simulators leased by runs: capacity, one run per simulator, release, recovery.
final class HostLeaseTests: StoreTestCase {
    private let me = RunOwner.current()
    /// An owner this test declares dead or alive through `isOwnerAlive`, whatever /proc says.
    private let ghost = RunOwner(hostname: "ci-1", pid: 4242, processStart: "boot:100")
    private let remote = RunOwner(hostname: "ci-2", pid: 77, processStart: nil)

    private func judge(dead: [RunOwner] = []) -> (RunOwner) -> RunOwner.Liveness {
        { owner in dead.contains(owner) ? .dead : .alive }
    }

    func testSlotsAreGrantedUpToCapacityThenRefusedNamingTheHolders() throws {
        let store = try openStore()
        let first = try store.leaseHostSlot(host: "mac-1", capacity: 2, runID: "run-a", owner: me)
        let second = try store.leaseHostSlot(host: "mac-1", capacity: 2, runID: "run-b", owner: me)
        XCTAssertTrue(first.isGranted)
        XCTAssertTrue(second.isGranted)
        XCTAssertNotEqual(first.lease?.id, second.lease?.id)

        let third = try store.leaseHostSlot(host: "mac-1", capacity: 2, runID: "run-c", owner: me)
        XCTAssertNil(third.lease)
        XCTAssertEqual(third.holders.map(\.runID), ["run-a", "run-b"])
        let refusal = try XCTUnwrap(third.refusal)
        XCTAssertTrue(refusal.contains("run run-a (\(me.description))"), refusal)

        // Another host's slots are its own.
        XCTAssertTrue(try store.leaseHostSlot(host: "mac-2", capacity: 1, runID: "run-c", owner: me).isGranted)
        XCTAssertEqual(try store.activeLeases(host: "mac-1").map(\.runID), ["run-a", "run-b"])
        XCTAssertEqual(try store.activeLeases(host: nil).count, 3)

        // A released slot is free again.
        XCTAssertTrue(try store.releaseLease(id: try XCTUnwrap(first.lease?.id)))
        XCTAssertFalse(try store.releaseLease(id: try XCTUnwrap(first.lease?.id)), "already released")
        let retried = try store.leaseHostSlot(host: "mac-1", capacity: 2, runID: "run-c", owner: me)
        XCTAssertEqual(retried.lease?.runID, "run-c")
        XCTAssertEqual(retried.lease?.kind, .hostSlot)
        XCTAssertEqual(retried.lease?.owner, me)
    }

    func testARunThatAlreadyHoldsASlotGetsTheSameLeaseBack() throws {
        let store = try openStore()
        let first = try XCTUnwrap(try store.leaseHostSlot(host: "mac-1", capacity: 1, runID: "run-a", owner: me).lease)
        let again = try store.leaseHostSlot(host: "mac-1", capacity: 1, runID: "run-a", owner: me)
        XCTAssertEqual(again.lease, first, "a full host does not refuse the run that holds its slot")
        XCTAssertEqual(try store.activeLeases(host: "mac-1").count, 1)
    }

    func testACapacityLoweredBelowTheLeasesHeldRefusesNewRunsWithoutTouchingHeldOnes() throws {
        let store = try openStore()
        for run in ["run-a", "run-b", "run-c"] {
            XCTAssertTrue(try store.leaseHostSlot(host: "mac-1", capacity: 3, runID: run, owner: me).isGranted)
        }
        let refused = try store.leaseHostSlot(host: "mac-1", capacity: 1, runID: "run-d", owner: me)
        XCTAssertFalse(refused.isGranted)
        XCTAssertEqual(refused.holders.count, 3)
        XCTAssertThrowsError(try store.leaseHostSlot(host: "mac-1", capacity: 0, runID: "run-d", owner: me)) {
            XCTAssertTrue("\($0)".contains("capacity 0"), "\($0)")
        }
        XCTAssertThrowsError(try store.leaseHostSlot(host: " ", capacity: 1, runID: "run-d", owner: me))
    }

    func testASimulatorIsNeverLeasedToTwoRunsAtOnce() throws {
        let store = try openStore()
        let udid = "90052AC6-D47D-4B2A-840D-6B5B081260C6"
        let held = try XCTUnwrap(
            try store.leaseSimulator(host: "mac-1", udid: udid, runID: "run-a", layer: "logic", owner: me).lease)
        XCTAssertEqual(held.kind, .simulator)
        XCTAssertEqual(held.simulatorUDID, udid)

        // The same UDID written in lower case is the same simulator.
        let other = try store.leaseSimulator(
            host: "mac-1", udid: udid.lowercased(), runID: "run-b", layer: "logic", owner: me)
        XCTAssertNil(other.lease)
        XCTAssertEqual(other.holders, [held])
        XCTAssertEqual(other.refusal, "held by run run-a, layer logic (\(me.description))")

        // The run that holds it keeps it from layer to layer.
        let next = try XCTUnwrap(
            try store.leaseSimulator(host: "mac-1", udid: udid, runID: "run-a", layer: "intent", owner: me).lease)
        XCTAssertEqual(next.id, held.id)
        XCTAssertEqual(next.layer, "intent")
        XCTAssertEqual(try store.activeLeases(host: "mac-1").map(\.layer), ["intent"])

        // The same UDID on another host is another simulator.
        XCTAssertTrue(
            try store.leaseSimulator(host: "mac-2", udid: udid, runID: "run-b", layer: nil, owner: me).isGranted)

        XCTAssertEqual(try store.releaseLeases(runID: "run-a").map(\.id), [held.id])
        XCTAssertTrue(
            try store.leaseSimulator(host: "mac-1", udid: udid, runID: "run-b", layer: nil, owner: me).isGranted)
    }

    func testTheSchemaItselfRefusesASecondLeaseOfOneSimulator() throws {
        let store = try openStore()
        _ = try store.leaseSimulator(host: "mac-1", udid: "A", runID: "run-a", layer: nil, owner: me)
        let raw = try rawDatabase()
        XCTAssertThrowsError(
            try raw.execute(
                """
                INSERT INTO host_leases (kind, host, simulator_udid, run_id, owner_host, owner_pid, acquired_at)
                VALUES ('simulator', 'mac-1', 'A', 'run-b', 'ci-1', 1, '2026-11-18T00:00:00.000Z')
                """)
        ) { XCTAssertTrue("\($0)".contains("UNIQUE"), "\($0)") }
        XCTAssertThrowsError(
            try raw.execute(
                """
                INSERT INTO host_leases (kind, host, run_id, owner_host, owner_pid, acquired_at)
                VALUES ('simulator', 'mac-1', 'run-b', 'ci-1', 1, '2026-11-18T00:00:00.000Z')
                """), "a simulator lease without a UDID")
    }

    func testLeasesOfADeadOwnerAreRecoveredByTheNextRequestOnThatHost() throws {
        let store = try openStore()
        XCTAssertTrue(
            try store.leaseHostSlot(
                host: "mac-1", capacity: 1, runID: "crashed", owner: ghost, at: Date(), isOwnerAlive: judge()
            ).isGranted)
        _ = try store.leaseSimulator(
            host: "mac-1", udid: "A", runID: "crashed", layer: "unit", owner: ghost, at: Date(), isOwnerAlive: judge())
        // On another host, untouched by a request for mac-1.
        _ = try store.leaseHostSlot(
            host: "mac-2", capacity: 1, runID: "crashed", owner: ghost, at: Date(), isOwnerAlive: judge())

        let blocked = try store.leaseHostSlot(
            host: "mac-1", capacity: 1, runID: "next", owner: me, at: Date(), isOwnerAlive: judge())
        XCTAssertFalse(blocked.isGranted, "a live owner keeps its slot")

        let taken = try store.leaseHostSlot(
            host: "mac-1", capacity: 1, runID: "next", owner: me, at: Date(), isOwnerAlive: judge(dead: [ghost]))
        XCTAssertEqual(taken.lease?.runID, "next")
        XCTAssertEqual(taken.recovered.map(\.runID), ["crashed", "crashed"])
        XCTAssertEqual(Set(taken.recovered.map(\.kind)), [.hostSlot, .simulator])
        XCTAssertEqual(try store.activeLeases(host: "mac-2").map(\.runID), ["crashed"])

        // recoverLeases sweeps every host.
        XCTAssertEqual(try store.recoverLeases(isOwnerAlive: judge(dead: [ghost])).map(\.host), ["mac-2"])
        XCTAssertEqual(try store.activeLeases(host: nil).map(\.runID), ["next"])
    }

    func testAnOwnerOnAnotherMachineIsNotGuessedDead() throws {
        let store = try openStore()
        _ = try store.leaseHostSlot(
            host: "mac-1", capacity: 1, runID: "elsewhere", owner: remote, at: Date(), isOwnerAlive: judge())
        // The real judge: another machine's process is `.unknown`, so its lease stands.
        XCTAssertEqual(remote.liveness(), .unknown)
        XCTAssertFalse(try store.leaseHostSlot(host: "mac-1", capacity: 1, runID: "here", owner: me).isGranted)
        XCTAssertEqual(try store.recoverLeases(), [])
    }

    func testLeasesOfARunThatHasEndedAreRecoveredEvenWhileItsProcessLives() throws {
        let store = try openStore()
        let ended = StoreFixtures.runID(1)
        try store.createRun(StoreFixtures.newRun(ended), owner: me)
        let running = StoreFixtures.runID(2)
        try store.createRun(StoreFixtures.newRun(running), owner: me)
        XCTAssertTrue(try store.leaseHostSlot(host: "mac-1", capacity: 2, runID: ended, owner: me).isGranted)
        XCTAssertTrue(try store.leaseHostSlot(host: "mac-1", capacity: 2, runID: running, owner: me).isGranted)
        // A controller process that forgot to release: the run ended, the process lives on.
        try store.updateRun(
            ended, RunUpdate(status: .finished, finishedAt: StoreFixtures.timestamp(Date()), exitCode: 0))

        let next = try store.leaseHostSlot(host: "mac-1", capacity: 2, runID: "next", owner: me)
        XCTAssertTrue(next.isGranted)
        XCTAssertEqual(next.recovered.map(\.runID), [ended])
        XCTAssertEqual(try store.activeLeases(host: "mac-1").map(\.runID), [running, "next"])
    }

    func testALeaseHolderKilledWithSIGKILLIsRecoveredByAnotherProcess() throws {
        _ = try openStore()
        let ready = folder.appending("holder-ready").path
        let holder = try LeaseWorker.start(
            .init(
                kind: .holdUntilKilled, storePath: storeURL.path, worker: 1, capacity: 1, udids: ["SIM-A"],
                readySignal: ready),
            output: folder.appending("holder.log"))
        let deadline = Date().addingTimeInterval(30)
        while !FileManager.default.fileExists(atPath: ready) && holder.isRunning && Date() < deadline {
            usleep(2_000)
        }
        XCTAssertTrue(holder.isRunning, (try? String(contentsOf: folder.appending("holder.log"))) ?? "")
        let store = try openStore()
        XCTAssertFalse(try store.leaseHostSlot(host: "mac-1", capacity: 1, runID: "mine", owner: me).isGranted)
        XCTAssertFalse(
            try store.leaseSimulator(host: "mac-1", udid: "SIM-A", runID: "mine", layer: nil, owner: me).isGranted)

        kill(holder.processIdentifier, SIGKILL)
        holder.waitUntilExit()

        let slot = try store.leaseHostSlot(host: "mac-1", capacity: 1, runID: "mine", owner: me)
        XCTAssertTrue(slot.isGranted)
        XCTAssertEqual(slot.recovered.map(\.owner.pid), [holder.processIdentifier, holder.processIdentifier])
        XCTAssertTrue(
            try store.leaseSimulator(host: "mac-1", udid: "SIM-A", runID: "mine", layer: nil, owner: me).isGranted)
    }

    func testEightProcessesContendingForTwoSlotsNeverHoldMoreThanTwo() throws {
        let reports = try contend(workers: 8, holds: 4, holdMilliseconds: 15, capacity: 2, udids: [])
        let holds = reports.flatMap(\.holds)
        XCTAssertEqual(holds.count, 8 * 4)
        XCTAssertEqual(maximumOverlap(holds), 2, "two slots, always full while eight processes wait")
        print(
            "host leases: 8 processes, 2 slots, \(holds.count) holds of 15 ms; refusals \(reports.map(\.refusals).reduce(0, +)), busy retries \(reports.map(\.busyRetries).reduce(0, +))"
        )
        XCTAssertEqual(try openStore().activeLeases(host: nil), [], "every lease was released")
    }

    func testEightProcessesContendingForTwoSimulatorsNeverShareOne() throws {
        let reports = try contend(workers: 8, holds: 4, holdMilliseconds: 10, capacity: 8, udids: ["SIM-A", "SIM-B"])
        let holds = reports.flatMap(\.holds)
        XCTAssertEqual(holds.count, 8 * 4)
        for udid in ["SIM-A", "SIM-B"] {
            let onIt = holds.filter { $0.resource == udid }
            XCTAssertFalse(onIt.isEmpty, udid)
            XCTAssertEqual(maximumOverlap(onIt), 1, "\(udid) was held by two runs at once")
        }
    }

    // MARK: - Helpers

    private func contend(workers: Int, holds: Int, holdMilliseconds: Int, capacity: Int, udids: [String]) throws
        -> [LeaseWorker.Report]
    {
        _ = try openStore()
        let start = folder.appending("go").path
        let processes = try (0..<workers).map { worker in
            try LeaseWorker.start(
                .init(
                    kind: .contend, storePath: storeURL.path, worker: worker, capacity: capacity, udids: udids,
                    holds: holds, holdMilliseconds: holdMilliseconds, startSignal: start,
                    readySignal: folder.appending("ready-\(worker)").path),
                output: folder.appending("worker-\(worker).log"))
        }
        let deadline = Date().addingTimeInterval(60)
        while (0..<workers).contains(where: {
            !FileManager.default.fileExists(atPath: folder.appending("ready-\($0)").path)
        }), processes.allSatisfy(\.isRunning), Date() < deadline {
            usleep(1_000)
        }
        _ = FileManager.default.createFile(atPath: start, contents: nil)
        for process in processes { process.waitUntilExit() }
        var reports: [LeaseWorker.Report] = []
        for (worker, process) in processes.enumerated() {
            let output = try String(contentsOf: folder.appending("worker-\(worker).log"), encoding: .utf8)
            XCTAssertEqual(process.terminationStatus, 0, output)
            guard let report = try LeaseWorker.report(from: output) else {
                XCTFail("worker \(worker) did not report:\n\(output)")
                continue
            }
            XCTAssertEqual(report.errors, [], "worker \(worker)")
            reports.append(report)
        }
        return reports
    }

    /// The most holds in progress at one instant.
    private func maximumOverlap(_ holds: [LeaseWorker.Hold]) -> Int {
        // Ends sort before starts at the same instant: touching intervals do not overlap.
        let edges = holds.flatMap { [($0.start, 1), ($0.end, -1)] }.sorted { ($0.0, $0.1) < ($1.0, $1.1) }
        var current = 0
        var most = 0
        for (_, change) in edges {
            current += change
            most = max(most, current)
        }
        return most
    }
}
