import Foundation
import XCTest

@testable import PipeCore

/// Sharing a host's simulators out among a run's layers running at once.
final class SimulatorPoolTests: XCTestCase {
    private func simulator(_ udid: String) -> Simulator {
        Simulator(
            udid: udid, name: "iPhone 15", runtimeIdentifier: "com.apple.CoreSimulator.SimRuntime.iOS-18-2",
            runtimeName: "iOS 18.2", platform: "iOS", runtimeVersion: "18.2", state: "Shutdown")
    }

    func testEachLayerGetsADifferentSimulatorBestFirst() {
        let pool = SimulatorPool(fitting: [simulator("A"), simulator("B")])
        let token = CancellationToken()
        XCTAssertEqual(pool.acquire(for: "logic", cancellation: token)?.udid, "A")
        XCTAssertEqual(pool.acquire(for: "intent", cancellation: token)?.udid, "B")
        XCTAssertEqual(pool.held(byOthersThan: "logic"), ["B"])
        pool.release(for: "logic")
        XCTAssertEqual(pool.acquire(for: "ui", cancellation: token)?.udid, "A", "a released simulator is free again")
    }

    func testALayerWaitsWhileEverySimulatorIsHeldAndGetsTheOneReleased() {
        let pool = SimulatorPool(fitting: [simulator("A")])
        let token = CancellationToken()
        XCTAssertEqual(pool.acquire(for: "logic", cancellation: token)?.udid, "A")
        let acquired = expectation(description: "intent gets A once logic releases it")
        let waiting = Thread {
            XCTAssertEqual(pool.acquire(for: "intent", cancellation: token)?.udid, "A")
            acquired.fulfill()
        }
        waiting.start()
        // The waiter cannot have it yet: logic holds it.
        XCTAssertEqual(pool.held(byOthersThan: "intent"), ["A"])
        pool.release(for: "logic")
        wait(for: [acquired], timeout: 5)
        XCTAssertEqual(pool.held(byOthersThan: "logic"), ["A"])
    }

    func testCancellationEndsTheWait() {
        let pool = SimulatorPool(fitting: [simulator("A")])
        let token = CancellationToken()
        _ = pool.acquire(for: "logic", cancellation: token)
        let ended = expectation(description: "the wait ends without a simulator")
        Thread {
            XCTAssertNil(pool.acquire(for: "intent", cancellation: token))
            ended.fulfill()
        }.start()
        token.cancel(reason: "Ctrl-C")
        wait(for: [ended], timeout: 5)
    }

    func testARetryExchangesForAnUntriedFreeOneOrKeepsItsOwn() {
        let pool = SimulatorPool(fitting: [simulator("A"), simulator("B"), simulator("C")])
        let token = CancellationToken()
        _ = pool.acquire(for: "logic", cancellation: token)  // A
        _ = pool.acquire(for: "intent", cancellation: token)  // B
        XCTAssertEqual(pool.exchange(for: "logic", avoiding: ["A"])?.udid, "C", "B is intent's")
        XCTAssertEqual(pool.held(byOthersThan: "intent"), ["C"], "A went back")
        XCTAssertNil(pool.exchange(for: "logic", avoiding: ["A", "C"]), "nothing untried is free")
        XCTAssertEqual(pool.held(byOthersThan: "intent"), ["C"], "logic keeps C")
    }

    func testAStoreLeaseOfAnotherSimulatorIsRecordedCaseInsensitively() {
        let pool = SimulatorPool(fitting: [simulator("A"), simulator("B")])
        let token = CancellationToken()
        _ = pool.acquire(for: "logic", cancellation: token)
        XCTAssertTrue(pool.reserve("b", for: "logic"))
        XCTAssertEqual(pool.acquire(for: "intent", cancellation: token)?.udid, "A", "logic now holds B, not A")
    }

    func testASimulatorAnotherLayerHoldsIsNeverReserved() {
        let pool = SimulatorPool(fitting: [simulator("A"), simulator("B")])
        let token = CancellationToken()
        _ = pool.acquire(for: "logic", cancellation: token)  // A
        _ = pool.acquire(for: "intent", cancellation: token)  // B
        XCTAssertFalse(pool.reserve("a", for: "intent"), "logic holds A")
        XCTAssertEqual(pool.held(byOthersThan: "logic"), ["B"], "a refused reservation changes nothing")
        XCTAssertTrue(pool.reserve("Z", for: "intent"), "a simulator outside the pool that no layer holds")
        XCTAssertEqual(pool.held(byOthersThan: "logic"), ["Z"])
    }
}
