import Foundation
import PipeCore
import PipeServer
import XCTest

/// The scheduler's and the dispatcher's decisions, and branch patterns: pure, against explicit times and counts.
final class SchedulingTests: XCTestCase {
    private let t0 = Date(timeIntervalSince1970: 1_800_000_000)  // a multiple of 60 s: slots line up
    private let minutely = ScheduleTiming.every(seconds: 60)

    private func state(baseline: Date, last: Date? = nil) -> ScheduleState {
        ScheduleState(name: "s", baseline: baseline, lastSlot: last, lastRunID: nil)
    }

    func testNothingIsDueBeforeTheFirstSlotAfterTheBaseline() {
        let decision = ScheduleEvaluator.decide(
            timing: minutely, policy: .once, state: state(baseline: t0), controllerStartedAt: t0,
            now: t0.addingTimeInterval(59))
        XCTAssertEqual(decision, .wait(next: t0.addingTimeInterval(60)))
    }

    func testASlotOnTimeFiresOnceEvenWhenSeveralPassedDuringOneTick() {
        XCTAssertEqual(
            ScheduleEvaluator.decide(
                timing: minutely, policy: .skip, state: state(baseline: t0), controllerStartedAt: t0,
                now: t0.addingTimeInterval(60.2)),
            .fire(slot: t0.addingTimeInterval(60), folded: 0))
        XCTAssertEqual(
            ScheduleEvaluator.decide(
                timing: minutely, policy: .skip, state: state(baseline: t0, last: t0.addingTimeInterval(60)),
                controllerStartedAt: t0, now: t0.addingTimeInterval(185)),
            .fire(slot: t0.addingTimeInterval(180), folded: 1))
        // The slot already recorded does not fire again.
        XCTAssertEqual(
            ScheduleEvaluator.decide(
                timing: minutely, policy: .once, state: state(baseline: t0, last: t0.addingTimeInterval(180)),
                controllerStartedAt: t0, now: t0.addingTimeInterval(190)),
            .wait(next: t0.addingTimeInterval(240)))
    }

    func testMissedSlotsRunOnceOrAreSkipped() {
        // Down from t0+60 to t0+600: nine slots passed with no controller.
        let restarted = t0.addingTimeInterval(600.5)
        let last = state(baseline: t0, last: t0.addingTimeInterval(60))
        XCTAssertEqual(
            ScheduleEvaluator.decide(
                timing: minutely, policy: .once, state: last, controllerStartedAt: restarted, now: restarted),
            .fire(slot: t0.addingTimeInterval(600), folded: 8))
        XCTAssertEqual(
            ScheduleEvaluator.decide(
                timing: minutely, policy: .skip, state: last, controllerStartedAt: restarted, now: restarted),
            .skipMissed(latest: t0.addingTimeInterval(600), count: 9))
    }

    func testAScheduleFirstSeenDoesNotFireForItsPast() throws {
        let daily = try ScheduleTiming.parse("0 2 * * *", timeZone: TimeZone(identifier: "UTC")!)
        let firstSeen = t0
        XCTAssertEqual(
            ScheduleEvaluator.decide(
                timing: daily, policy: .once, state: state(baseline: firstSeen), controllerStartedAt: firstSeen,
                now: firstSeen),
            .wait(next: daily.nextFire(after: firstSeen)))
    }

    // MARK: Dispatch

    private func waiting(_ pipelines: [String]) -> [DispatchPlanner.Waiting] {
        pipelines.enumerated().map { .init(runID: "r\($0.offset)", pipeline: $0.element) }
    }

    func testStartsOnlyWhatFreeHostSlotsTake() {
        let plan = DispatchPlanner(limits: ControllerLimits()).plan(
            waiting: waiting(["a", "a", "a", "a"]), running: [:], freeSlots: ["m1": 2, "m2": 1],
            hostsOfPipeline: ["a": ["m1", "m2"]])
        XCTAssertEqual(plan.starts.map(\.runID), ["r0", "r1", "r2"])
        XCTAssertEqual(plan.starts.map(\.host), ["m1", "m1", "m2"])
        XCTAssertEqual(plan.holds["r3"], .noFreeHost(pipeline: "a"))
    }

    func testLimitsOverallAndPerPipeline() {
        let limits = ControllerLimits(runs: 3, perPipeline: 2, pipelines: ["b": 1])
        let plan = DispatchPlanner(limits: limits).plan(
            waiting: waiting(["a", "a", "b", "b", "c", "c"]), running: ["a": 1], freeSlots: ["m": 10],
            hostsOfPipeline: ["a": ["m"], "b": ["m"], "c": ["m"]])
        XCTAssertEqual(plan.starts.map(\.runID), ["r0", "r2"])
        XCTAssertEqual(plan.holds["r1"], .pipelineLimit(pipeline: "a", limit: 2))
        XCTAssertEqual(plan.holds["r3"], .overallLimit(3))
        XCTAssertEqual(plan.holds["r4"], .overallLimit(3))
    }

    func testPipelinesSharingAHostShareItsSlotsAndOthersPassAhead() {
        let plan = DispatchPlanner(limits: ControllerLimits()).plan(
            waiting: waiting(["a", "b", "c"]), running: [:], freeSlots: ["shared": 1, "own": 1],
            hostsOfPipeline: ["a": ["shared"], "b": ["shared"], "c": ["own"]])
        XCTAssertEqual(plan.starts.map(\.runID), ["r0", "r2"], "c's own host is free: it does not wait behind b")
        XCTAssertEqual(plan.holds["r1"], .noFreeHost(pipeline: "b"))
    }

    func testALongQueueBehindBusyHostsIsHeldWhileAnotherPipelineStarts() {
        let plan = DispatchPlanner(limits: ControllerLimits()).plan(
            waiting: waiting(Array(repeating: "a", count: 500) + ["c", "a", "c"]), running: [:],
            freeSlots: ["m1": 1, "m2": 0, "own": 1], hostsOfPipeline: ["a": ["m1", "m2"], "c": ["own"]])
        XCTAssertEqual(plan.starts.map(\.runID), ["r0", "r500"])
        XCTAssertEqual(plan.starts.map(\.host), ["m1", "own"])
        XCTAssertEqual(plan.holds.count, 501)
        XCTAssertEqual(plan.holds["r499"], .noFreeHost(pipeline: "a"))
        XCTAssertEqual(plan.holds["r501"], .noFreeHost(pipeline: "a"))
        XCTAssertEqual(plan.holds["r502"], .noFreeHost(pipeline: "c"))
    }

    // MARK: Branch patterns

    func testBranchPatterns() {
        XCTAssertTrue(BranchPattern("main").matches("main"))
        XCTAssertFalse(BranchPattern("main").matches("main2"))
        XCTAssertTrue(BranchPattern("release/*").matches("release/2.0"))
        XCTAssertFalse(BranchPattern("release/*").matches("release/2.0/hotfix"))
        XCTAssertFalse(BranchPattern("release/*").matches("release"))
        XCTAssertTrue(BranchPattern("feature/**").matches("feature/a/b/c"))
        XCTAssertTrue(BranchPattern("**").matches("any/thing"))
        XCTAssertTrue(BranchPattern("v?.x").matches("v2.x"))
        XCTAssertFalse(BranchPattern("v?.x").matches("v/.x"))
        XCTAssertTrue(BranchPattern("*-stable").matches("2024-stable"))
    }
}
