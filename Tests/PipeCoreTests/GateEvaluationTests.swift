import PipeCore
import XCTest

final class GateEvaluationTests: XCTestCase {
    private func layer(_ name: String, _ gate: Gate, _ outcome: LayerOutcome?, _ evidence: [String] = [])
        -> GateEvaluation.Layer
    {
        GateEvaluation.Layer(name: name, gate: gate, outcome: outcome, evidence: evidence)
    }

    /// The app-intents pipeline's shape: two automated layers and a release checklist.
    private func appIntents(logic: LayerOutcome?, intent: LayerOutcome?, shortcuts: LayerOutcome?)
        -> [GateEvaluation.Layer]
    {
        [layer("logic", .merge, logic), layer("intent", .merge, intent), layer("shortcuts", .release, shortcuts)]
    }

    func testMergeGatePassesOverPassedAndFlakyLayersAndIgnoresTheReleaseChecklist() {
        let evaluation = GateEvaluation.evaluate(
            .merge, runStatus: .finished,
            layers: appIntents(logic: .passed, intent: .flaky, shortcuts: .awaitingSignoff))
        XCTAssertEqual(evaluation.verdict, .passed)
        XCTAssertEqual(evaluation.verdict.exitCode, 0)
        XCTAssertEqual(evaluation.gates, [.merge])
        XCTAssertEqual(evaluation.layers.map(\.name), ["logic", "intent"])
        XCTAssertEqual(evaluation.headline, "merge gate passed")
    }

    func testReleaseGateIncludesTheMergeGateAndIsPendingWhileOnlySignoffsAreMissing() {
        let evaluation = GateEvaluation.evaluate(
            .release, runStatus: .finished,
            layers: appIntents(logic: .passed, intent: .passed, shortcuts: .awaitingSignoff))
        XCTAssertEqual(evaluation.gates, [.merge, .release])
        XCTAssertEqual(evaluation.layers.map(\.name), ["logic", "intent", "shortcuts"])
        XCTAssertEqual(evaluation.verdict, .pendingSignoff)
        XCTAssertEqual(evaluation.verdict.exitCode, 4)
        XCTAssertEqual(evaluation.decidingLayers.map(\.name), ["shortcuts"])
        XCTAssertEqual(evaluation.headline, "release gate (with merge) pending sign-off: shortcuts")
    }

    func testReleaseGatePassesOnceSignedOff() {
        let evaluation = GateEvaluation.evaluate(
            .release, runStatus: .finished,
            layers: appIntents(logic: .passed, intent: .passed, shortcuts: .signedOff))
        XCTAssertEqual(evaluation.verdict, .passed)
        XCTAssertEqual(evaluation.layers.map(\.standing), [.passes, .passes, .passes])
    }

    func testEveryFailingOutcomeFailsTheGateWithExitOne() {
        for outcome in [LayerOutcome.testsFailed, .buildFailed, .timedOut] {
            let evaluation = GateEvaluation.evaluate(
                .merge, runStatus: .finished,
                layers: [layer("logic", .merge, outcome, ["ReadingIDTests/testRejectsInnerSpace() failed"])])
            XCTAssertEqual(evaluation.verdict, .failed, outcome.rawValue)
            XCTAssertEqual(evaluation.verdict.exitCode, 1)
            XCTAssertEqual(
                evaluation.layers.first?.reason, "\(outcome.rawValue): ReadingIDTests/testRejectsInnerSpace() failed")
        }
    }

    func testARejectedSignoffFailsTheReleaseGateButNotTheMergeGate() {
        let layers = appIntents(logic: .passed, intent: .passed, shortcuts: .rejected)
        XCTAssertEqual(GateEvaluation.evaluate(.release, runStatus: .finished, layers: layers).verdict, .failed)
        XCTAssertEqual(GateEvaluation.evaluate(.merge, runStatus: .finished, layers: layers).verdict, .passed)
    }

    func testAFailedMergeLayerFailsTheReleaseGateToo() {
        let evaluation = GateEvaluation.evaluate(
            .release, runStatus: .finished,
            layers: appIntents(logic: .testsFailed, intent: .passed, shortcuts: .signedOff))
        XCTAssertEqual(evaluation.verdict, .failed)
        XCTAssertEqual(evaluation.headline, "release gate (with merge) failed: logic")
    }

    func testOutcomesThatCannotBeJudgedExitThree() {
        for outcome in [LayerOutcome.hostConfig, .infrastructure, .pluginError, .cancelled, .skipped] {
            let evaluation = GateEvaluation.evaluate(
                .merge, runStatus: .finished,
                layers: [layer("logic", .merge, .passed), layer("intent", .merge, outcome)])
            XCTAssertEqual(evaluation.verdict, .couldNotJudge, outcome.rawValue)
            XCTAssertEqual(evaluation.verdict.exitCode, 3)
            XCTAssertEqual(evaluation.decidingLayers.map(\.name), ["intent"])
        }
    }

    func testALayerThatDidNotRunCannotBeJudged() {
        let evaluation = GateEvaluation.evaluate(
            .merge, runStatus: .finished, layers: [layer("logic", .merge, .passed), layer("intent", .merge, nil)])
        XCTAssertEqual(evaluation.verdict, .couldNotJudge)
        XCTAssertEqual(evaluation.layers.last?.reason, "not run")
    }

    func testAFailureWinsOverEverythingElse() {
        let evaluation = GateEvaluation.evaluate(
            .release, runStatus: .finished,
            layers: [
                layer("a", .merge, .infrastructure), layer("b", .merge, .testsFailed),
                layer("c", .release, .awaitingSignoff),
            ])
        XCTAssertEqual(evaluation.verdict, .failed)
        XCTAssertEqual(evaluation.decidingLayers.map(\.name), ["b"])
    }

    func testCouldNotJudgeWinsOverPendingSignoffs() {
        let evaluation = GateEvaluation.evaluate(
            .release, runStatus: .finished,
            layers: appIntents(logic: .passed, intent: .pluginError, shortcuts: .awaitingSignoff))
        XCTAssertEqual(evaluation.verdict, .couldNotJudge)
    }

    func testFlakyFailsTheGateUnderBlockPolicy() {
        let layers = [layer("logic", .merge, .flaky)]
        XCTAssertEqual(GateEvaluation.evaluate(.merge, runStatus: .finished, layers: layers).verdict, .passed)
        let blocked = GateEvaluation.evaluate(.merge, runStatus: .finished, layers: layers, flakyPolicy: .block)
        XCTAssertEqual(blocked.verdict, .failed)
        XCTAssertTrue(blocked.layers[0].reason.contains("flaky: block"), blocked.layers[0].reason)
    }

    func testARunThatHasNotFinishedCannotBeJudgedEvenWhenItsLayersPassed() {
        for status in [RunStatus.queued, .running, .cancelled, .interrupted] {
            let evaluation = GateEvaluation.evaluate(
                .merge, runStatus: status, layers: [layer("logic", .merge, .passed)])
            XCTAssertEqual(evaluation.verdict, .couldNotJudge, status.rawValue)
            XCTAssertNotNil(evaluation.runProblem)
            XCTAssertTrue(evaluation.headline.contains("could not be judged"), evaluation.headline)
        }
    }

    func testAProvenFailureInARunStillRunningIsAlreadyAFailure() {
        let evaluation = GateEvaluation.evaluate(
            .merge, runStatus: .running, layers: [layer("logic", .merge, .testsFailed), layer("intent", .merge, nil)])
        XCTAssertEqual(evaluation.verdict, .failed)
    }

    func testAPipelineWithoutReleaseLayersPassesTheReleaseGateOnItsMergeLayers() {
        let evaluation = GateEvaluation.evaluate(
            .release, runStatus: .finished, layers: [layer("logic", .merge, .passed)])
        XCTAssertEqual(evaluation.verdict, .passed)
    }

    func testAPendingChecklistInTheMergeGateHoldsTheMergeGate() {
        let evaluation = GateEvaluation.evaluate(
            .merge, runStatus: .finished, layers: [layer("review", .merge, .awaitingSignoff)])
        XCTAssertEqual(evaluation.verdict, .pendingSignoff)
    }

    func testEvaluatesARunRecord() {
        let record = RunRecord(
            runID: "20261129-140312-7f3a", pipeline: "app-intents", pipelineFile: "pipelines/app-intents.yml",
            status: .finished,
            request: .init(pipeline: "app-intents", ref: "HEAD", workspace: ".", requestedBy: "alice", trigger: "cli"),
            startedAt: "2026-11-29T14:03:12Z",
            layers: [
                .init(name: "logic", plugin: "xcodebuild-test", gate: .merge, outcome: .passed),
                .init(name: "shortcuts", plugin: "checklist", gate: .release, outcome: .rejected, evidence: ["no"]),
            ])
        XCTAssertEqual(GateEvaluation.evaluate(.merge, record: record).verdict, .passed)
        let release = GateEvaluation.evaluate(.release, record: record)
        XCTAssertEqual(release.verdict, .failed)
        XCTAssertEqual(release.layers.last?.reason, "rejected: no")
    }
}
