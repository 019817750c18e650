import Foundation
import PipeCore
import PipeStore
import XCTest

/// Build caches leased by runs: one run per cache, the next cache of the identity for a second run, release and
/// recovery like every lease.
final class BuildCacheLeaseTests: StoreTestCase {
    private let me = RunOwner.current()
    private let ghost = RunOwner(hostname: "ci-1", pid: 4242, processStart: "boot:100")
    private let caches = ["trusted-0123456789abcdef-1", "trusted-0123456789abcdef-2"]

    private func judge(dead: [RunOwner] = []) -> (RunOwner) -> RunOwner.Liveness {
        { owner in dead.contains(owner) ? .dead : .alive }
    }

    func testASecondRunTakesTheNextCacheAndAThirdIsRefusedNamingTheHolders() throws {
        let store = try openStore()
        let first = try store.leaseBuildCache(host: "mac-1", caches: caches, runID: "run-a", owner: me)
        let second = try store.leaseBuildCache(host: "mac-1", caches: caches, runID: "run-b", owner: me)
        XCTAssertEqual(first.lease?.buildCache, caches[0])
        XCTAssertEqual(first.lease?.kind, .buildCache)
        XCTAssertEqual(second.lease?.buildCache, caches[1])

        let third = try store.leaseBuildCache(host: "mac-1", caches: caches, runID: "run-c", owner: me)
        XCTAssertNil(third.lease)
        XCTAssertEqual(third.holders.map(\.runID), ["run-a", "run-b"])
        XCTAssertTrue(try XCTUnwrap(third.refusal).contains("run run-a"))

        // Another host's caches of the same name are its own.
        XCTAssertEqual(
            try store.leaseBuildCache(host: "mac-2", caches: caches, runID: "run-c", owner: me).lease?.buildCache,
            caches[0])
        // A run that holds one gets it back, not a second one.
        XCTAssertEqual(
            try store.leaseBuildCache(host: "mac-1", caches: caches, runID: "run-b", owner: me).lease, second.lease)

        // Released (the run ended), the first cache goes to the next run that asks: warm for it.
        XCTAssertEqual(try store.releaseLeases(runID: "run-a").map(\.buildCache), [caches[0]])
        XCTAssertEqual(
            try store.leaseBuildCache(host: "mac-1", caches: caches, runID: "run-c", owner: me).lease?.buildCache,
            caches[0])
    }

    func testCachesOfAnotherIdentityDoNotCount() throws {
        let store = try openStore()
        let fork = ["untrusted-0123456789abcdef-1"]
        XCTAssertTrue(try store.leaseBuildCache(host: "mac-1", caches: fork, runID: "run-a", owner: me).isGranted)
        XCTAssertEqual(
            try store.leaseBuildCache(host: "mac-1", caches: caches, runID: "run-b", owner: me).lease?.buildCache,
            caches[0])
        XCTAssertEqual(
            try store.activeLeases(host: "mac-1").compactMap(\.buildCache).sorted(), [caches[0], fork[0]].sorted())
    }

    func testADeadOwnersCacheIsRecoveredForTheNextRun() throws {
        let store = try openStore()
        _ = try store.leaseBuildCache(
            host: "mac-1", caches: [caches[0]], runID: "run-a", owner: ghost, at: Date(), isOwnerAlive: judge())
        let refused = try store.leaseBuildCache(
            host: "mac-1", caches: [caches[0]], runID: "run-b", owner: me, at: Date(), isOwnerAlive: judge())
        XCTAssertFalse(refused.isGranted)
        let taken = try store.leaseBuildCache(
            host: "mac-1", caches: [caches[0]], runID: "run-b", owner: me, at: Date(),
            isOwnerAlive: judge(dead: [ghost]))
        XCTAssertEqual(taken.lease?.buildCache, caches[0])
        XCTAssertEqual(taken.recovered.map(\.runID), ["run-a"])
    }

    func testNoCacheNamesIsRefusedAsInput() throws {
        let store = try openStore()
        XCTAssertThrowsError(try store.leaseBuildCache(host: "mac-1", caches: [], runID: "run-a", owner: me))
        XCTAssertThrowsError(try store.leaseBuildCache(host: "mac-1", caches: [" "], runID: "run-a", owner: me))
    }
}
