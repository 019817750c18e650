import PipeCore
import PipeForge
import XCTest

/// From the gate's verdict (`GateEvaluation`) to the state the forges are told.
final class ForgeGateReportEvaluationTests: XCTestCase {
    private func state(
        _ layers: [GateEvaluation.Layer], gate: Gate = .merge, status: RunStatus = .finished,
        tests: (failed: Int, total: Int)? = nil, refused: String? = nil
    ) -> ForgeGateReport.State {
        let evaluation = GateEvaluation.evaluate(gate, runStatus: status, layers: layers)
        return .judged(evaluation, runStatus: status, tests: tests, refusedBeforeAnyLayer: refused)
    }

    private let unit = GateEvaluation.Layer(name: "unit", gate: .merge, outcome: .passed)

    func testEachVerdictBecomesItsState() {
        XCTAssertEqual(state([unit], status: .queued), .queued)
        XCTAssertEqual(state([unit], status: .running), .running)
        XCTAssertEqual(state([unit], status: .cancelled), .cancelled)
        XCTAssertEqual(state([unit], tests: (0, 19)), .passed(tests: 19))
        XCTAssertEqual(
            state(
                [unit, .init(name: "intent", gate: .merge, outcome: .testsFailed, evidence: ["2 tests failed"])],
                tests: (2, 19)),
            .appFailed(.init(layer: "intent", failedTests: 2, totalTests: 19, reason: "tests-failed: 2 tests failed")))
        XCTAssertEqual(
            state([.init(name: "intent", gate: .merge, outcome: .hostConfig, evidence: ["scheme Reader is not shared"])]
            ),
            .couldNotJudge(.hostConfig, reason: "scheme Reader is not shared"))
        XCTAssertEqual(
            state([.init(name: "intent", gate: .merge, outcome: .pluginError)]),
            .couldNotJudge(.pluginError, reason: "intent could not be judged"))
        XCTAssertEqual(
            state([.init(name: "intent", gate: .merge, outcome: .cancelled)]), .cancelled)
        XCTAssertEqual(
            state([unit], status: .interrupted),
            .couldNotJudge(.infrastructure, reason: "the run was interrupted (its coordinator died) before it finished")
        )
        XCTAssertEqual(
            state([unit], refused: "SIM_UDID is not set"), .couldNotJudge(.refused, reason: "SIM_UDID is not set"))
    }

    func testTheReleaseGateWaitsForSignOffThenFollowsIt() {
        let awaiting = GateEvaluation.Layer(name: "shortcuts", gate: .release, outcome: .awaitingSignoff)
        XCTAssertEqual(state([unit, awaiting], gate: .release), .awaitingSignoff(checklists: ["shortcuts"]))
        XCTAssertEqual(state([unit, awaiting], gate: .merge), .passed(tests: nil), "merge does not wait for it")
        let signed = GateEvaluation.Layer(name: "shortcuts", gate: .release, outcome: .signedOff)
        XCTAssertEqual(state([unit, signed], gate: .release), .passed(tests: nil))
        let rejected = GateEvaluation.Layer(
            name: "shortcuts", gate: .release, outcome: .rejected, evidence: ["not listed"])
        XCTAssertEqual(
            state([unit, rejected], gate: .release),
            .appFailed(.init(layer: "shortcuts", reason: "rejected: not listed")))
    }
}
