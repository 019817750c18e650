import PipeCore
import XCTest

/// Which layers start when: as soon as what they need has ended, within the bounds.
final class LayerScheduleTests: XCTestCase {
    private typealias Layer = LayerSchedule.Layer

    private func names(_ layers: [Layer]) -> [String] { layers.map(\.name) }

    func testIndependentLayersStartTogetherAndADependentWaitsForAllItNeeds() {
        var schedule = LayerSchedule(
            [
                Layer(name: "logic"), Layer(name: "intent"),
                Layer(name: "shortcuts", needs: ["logic", "intent"]),
            ], limit: 4)
        XCTAssertEqual(names(schedule.startReady()), ["logic", "intent"])
        schedule.end("intent")
        XCTAssertEqual(names(schedule.startReady()), [], "shortcuts still needs logic")
        schedule.end("logic")
        XCTAssertEqual(names(schedule.startReady()), ["shortcuts"])
        XCTAssertFalse(schedule.isFinished)
        schedule.end("shortcuts")
        XCTAssertTrue(schedule.isFinished)
    }

    func testALayerStartsAsSoonAsItsOwnNeedsEndedWhileOthersStillRun() {
        var schedule = LayerSchedule(
            [Layer(name: "a"), Layer(name: "slow"), Layer(name: "b", needs: ["a"])], limit: 4)
        XCTAssertEqual(names(schedule.startReady()), ["a", "slow"])
        schedule.end("a")
        XCTAssertEqual(names(schedule.startReady()), ["b"], "b does not wait for slow, which it does not need")
        XCTAssertEqual(names(schedule.running), ["slow", "b"])
    }

    func testTheLimitBoundsLayersAtATimeAndOneRunsThemOneAfterAnother() {
        var schedule = LayerSchedule((1...3).map { Layer(name: "l\($0)") }, limit: 1)
        var order: [String] = []
        while !schedule.isFinished {
            let started = schedule.startReady()
            XCTAssertEqual(started.count, 1)
            XCTAssertEqual(schedule.running.count, 1)
            order += names(started)
            schedule.end(started[0].name)
        }
        XCTAssertEqual(order, ["l1", "l2", "l3"], "file order kept")

        var two = LayerSchedule((1...3).map { Layer(name: "l\($0)") }, limit: 2)
        XCTAssertEqual(names(two.startReady()), ["l1", "l2"])
        XCTAssertEqual(names(two.startReady()), [], "nothing more while two run")
        two.end("l2")
        XCTAssertEqual(names(two.startReady()), ["l3"])
    }

    func testLayersThatNeedASimulatorAreBoundByTheSimulatorsWithoutHoldingBackOthers() {
        var schedule = LayerSchedule(
            [
                Layer(name: "ui", needsSimulator: true), Layer(name: "unit", needsSimulator: true),
                Layer(name: "lint"),
            ], limit: 4, simulators: 1)
        XCTAssertEqual(names(schedule.startReady()), ["ui", "lint"], "lint needs no simulator and starts now")
        schedule.end("lint")
        XCTAssertEqual(names(schedule.startReady()), [], "unit waits for ui's simulator")
        schedule.end("ui")
        XCTAssertEqual(names(schedule.startReady()), ["unit"])
    }

    func testALimitBelowOneIsOne() {
        var schedule = LayerSchedule([Layer(name: "a"), Layer(name: "b")], limit: 0, simulators: 0)
        XCTAssertEqual(schedule.limit, 1)
        XCTAssertEqual(schedule.simulators, 1)
        XCTAssertEqual(names(schedule.startReady()), ["a"])
    }

    func testANeedThatCanNeverEndDoesNotStallTheRun() {
        // The spec loader refuses these; the schedule still ends rather than waiting forever.
        var schedule = LayerSchedule(
            [Layer(name: "a", needs: ["b"]), Layer(name: "b", needs: ["a"]), Layer(name: "c", needs: ["gone"])],
            limit: 4)
        var order: [String] = []
        while !schedule.isFinished {
            let started = schedule.startReady()
            XCTAssertFalse(started.isEmpty, "stalled with \(schedule.waiting.map(\.name)) waiting")
            order += names(started)
            for layer in started { schedule.end(layer.name) }
        }
        XCTAssertEqual(order, ["a", "b", "c"])
    }

    func testEndingALayerThatIsNotRunningChangesNothing() {
        var schedule = LayerSchedule([Layer(name: "a"), Layer(name: "b", needs: ["a"])], limit: 2)
        schedule.end("a")
        XCTAssertEqual(names(schedule.startReady()), ["a"], "a never started, so it has not ended either")
    }
}
