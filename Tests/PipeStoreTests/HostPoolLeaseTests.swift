import Foundation
import PipeCore
import PipeStore
import XCTest

/// Choosing a host and leasing its slot in one call, as the engine does, over a real store.
final class HostPoolLeaseTests: StoreTestCase {
    private let hosts = [
        HostConfig(name: "mac-1", address: "10.0.0.1", user: "ci", knownHostsFile: "k", capacity: 1),
        HostConfig(name: "mac-2", address: "10.0.0.2", user: "ci", knownHostsFile: "k", capacity: 2),
        HostConfig(name: "mac-3", address: "10.0.0.3", user: "ci", knownHostsFile: "k", capacity: 4),
    ]

    private func leasedHost(_ result: HostPoolLease) -> String? {
        if case .leased(let host, _, _) = result { return host.name }
        return nil
    }

    func testRunsGoWhereMostSlotsAreFreeAndAHostOutOfRotationGetsNone() throws {
        let store = try openStore()
        try store.recordHealth(
            HostHealthRecord(
                host: "mac-3", checkedAt: Date(), usable: false, problem: "disk: only 120 MB free",
                source: "pipe hosts check"))
        try store.recordHealth(
            HostHealthRecord(
                host: "mac-1", checkedAt: Date(), usable: true, latencySeconds: 0.003, source: "pipe hosts check"))

        let first = try store.leaseBestHost(among: hosts, runID: "run-a")
        XCTAssertEqual(leasedHost(first), "mac-2", "two free slots beat one; mac-3's four are out of rotation")
        if case .leased(_, let lease, let reason) = first {
            XCTAssertEqual(lease.runID, "run-a")
            XCTAssertEqual(reason, "2 of 2 slots free; never health-checked")
        }
        // One free slot each now: mac-1's passed check wins over mac-2's none.
        XCTAssertEqual(leasedHost(try store.leaseBestHost(among: hosts, runID: "run-b")), "mac-1")
        XCTAssertEqual(leasedHost(try store.leaseBestHost(among: hosts, runID: "run-c")), "mac-2")

        guard case .unavailable(let explanation, let choice) = try store.leaseBestHost(among: hosts, runID: "run-d")
        else { return XCTFail("every slot is taken") }
        XCTAssertEqual(choice.excluded.map(\.host.name), ["mac-1", "mac-2", "mac-3"])
        for part in ["mac-1: all 1 slot leased", "mac-2: all 2 slots leased", "mac-3: out of rotation", "120 MB"] {
            XCTAssertTrue(explanation.contains(part), "'\(part)' missing from: \(explanation)")
        }

        // A check that passes puts mac-3 back, with its four slots.
        try store.recordHealth(
            HostHealthRecord(host: "mac-3", checkedAt: Date(), usable: true, source: "pipe hosts check"))
        XCTAssertEqual(leasedHost(try store.leaseBestHost(among: hosts, runID: "run-d")), "mac-3")
    }

    func testAHostAlreadyTriedIsSkippedAndADeadOwnersSlotIsNotBusy() throws {
        let store = try openStore()
        let ghost = RunOwner(hostname: RunOwner.current().hostname, pid: Int32.max - 7, processStart: "gone")
        XCTAssertEqual(ghost.liveness(), .dead)
        _ = try store.leaseHostSlot(
            host: "mac-2", capacity: 2, runID: "crashed-1", owner: ghost, at: Date(), isOwnerAlive: { _ in .alive })
        _ = try store.leaseHostSlot(
            host: "mac-2", capacity: 2, runID: "crashed-2", owner: ghost, at: Date(), isOwnerAlive: { _ in .alive })

        let choice = try store.poolChoice(for: hosts)
        XCTAssertEqual(choice.ranked.first?.host.name, "mac-3")
        XCTAssertEqual(
            choice.ranked.first { $0.host.name == "mac-2" }?.freeSlots, 2, "the dead owner's slots came back")

        XCTAssertEqual(
            leasedHost(try store.leaseBestHost(among: hosts, runID: "run-a", excluding: ["mac-3"])), "mac-2")
        guard
            case .unavailable(let explanation, _) = try store.leaseBestHost(
                among: [hosts[2]], runID: "run-b", excluding: ["mac-3"])
        else { return XCTFail("nothing left to try") }
        XCTAssertEqual(explanation, "every matching host was tried and failed: mac-3")
    }
}
